"""LightRAG's Ollama example, in our words, with only the import lines changed: the native
Ollama functions, sync methods, no event loop of your own.

Reads OLLAMA_HOST, LLM_MODEL, EMBEDDING_MODEL and EMBEDDING_DIM.
"""

import os
from typing import Any

from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm.ollama import ollama_embed, ollama_model_complete
from lightrag_rs.utils import EmbeddingFunc

WORKING_DIR = os.environ.get("EXAMPLE_WORKING_DIR", "./ollama_storage")
HOST = os.environ.get("OLLAMA_HOST", "http://localhost:11434")


def embed(texts: list[str]) -> Any:
    return ollama_embed(texts, embed_model=os.environ.get("EMBEDDING_MODEL", "nomic-embed-text"), host=HOST)


def main() -> None:
    rag = LightRAG(
        working_dir=WORKING_DIR,
        llm_model_func=ollama_model_complete,
        llm_model_name=os.environ.get("LLM_MODEL", "qwen2.5:7b"),
        llm_model_kwargs={"host": HOST, "options": {"num_ctx": 32768}},
        embedding_func=EmbeddingFunc(
            embedding_dim=int(os.environ.get("EMBEDDING_DIM", "768")),
            max_token_size=8192,
            func=embed,
        ),
    )
    rag.insert("Ada Lovelace wrote the first program for Charles Babbage's Analytical Engine.")
    print(rag.query("Who did Ada Lovelace work with?", param=QueryParam(mode="local")))


if __name__ == "__main__":
    main()
