"""LightRAG's "OpenAI-like API" example, in our words, with only the import lines changed: your
own async LLM and embedding functions around ``openai_complete_if_cache`` and ``openai_embed``.

Reads LLM_MODEL, LLM_BINDING_HOST, LLM_BINDING_API_KEY, EMBEDDING_MODEL and EMBEDDING_DIM.
"""

import asyncio
import os
from typing import Any, AsyncIterator, Union

import numpy as np

from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed
from lightrag_rs.utils import EmbeddingFunc

WORKING_DIR = os.environ.get("EXAMPLE_WORKING_DIR", "./dickens")


async def llm_model_func(
    prompt: str,
    system_prompt: Union[str, None] = None,
    history_messages: Union[list[dict[str, Any]], None] = None,
    keyword_extraction: bool = False,
    **kwargs: Any,
) -> Union[str, AsyncIterator[str]]:
    return await openai_complete_if_cache(
        os.environ.get("LLM_MODEL", "solar-mini"),
        prompt,
        system_prompt=system_prompt,
        history_messages=history_messages or [],
        api_key=os.environ.get("LLM_BINDING_API_KEY"),
        base_url=os.environ.get("LLM_BINDING_HOST"),
        keyword_extraction=keyword_extraction,
        **kwargs,
    )


async def embedding_func(texts: list[str]) -> np.ndarray:
    vectors: np.ndarray = await openai_embed.func(
        texts,
        model=os.environ.get("EMBEDDING_MODEL", "solar-embedding-1-large-query"),
        api_key=os.environ.get("LLM_BINDING_API_KEY"),
        base_url=os.environ.get("LLM_BINDING_HOST"),
        embedding_dim=int(os.environ.get("EMBEDDING_DIM", "4096")),
    )
    return vectors


async def main() -> None:
    rag = LightRAG(
        working_dir=WORKING_DIR,
        llm_model_func=llm_model_func,
        embedding_func=EmbeddingFunc(
            embedding_dim=int(os.environ.get("EMBEDDING_DIM", "4096")),
            max_token_size=8192,
            func=embedding_func,
        ),
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert(
            [
                "Marie Curie discovered polonium and radium with Pierre Curie in Paris.",
                "Pierre Curie taught physics at the Sorbonne in Paris.",
            ],
            file_paths=["curie.txt", "pierre.txt"],
        )
        print(await rag.aquery("What did Marie Curie discover?", param=QueryParam(mode="hybrid")))
        stream = await rag.aquery("Who taught at the Sorbonne?", param=QueryParam(mode="mix", stream=True))
        if isinstance(stream, str):
            print(stream)
        else:
            async for piece in stream:
                print(piece, end="", flush=True)
            print()
    finally:
        await rag.finalize_storages()


if __name__ == "__main__":
    asyncio.run(main())
