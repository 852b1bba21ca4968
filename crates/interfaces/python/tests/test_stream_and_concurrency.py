"""Streamed answers, and many queries at once on one loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import Scripted
from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed

TEXTS = [
    "Nikola Tesla worked for Thomas Edison in New York before founding his own laboratory.",
    "George Westinghouse licensed Tesla's alternating current motor patents.",
]


def make_rag(path: Path) -> LightRAG:
    return LightRAG(working_dir=str(path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)


def test_stream_is_an_async_iterator_of_the_answer(openai_env: Scripted, tmp_path: Path) -> None:
    async def main() -> tuple[str, str]:
        rag = make_rag(tmp_path)
        await rag.initialize_storages()
        await rag.ainsert(TEXTS)
        whole = await rag.aquery("Who licensed Tesla's patents?", param=QueryParam(mode="mix"))
        stream = await rag.aquery("Who licensed Tesla's patents?", param=QueryParam(mode="mix", stream=True))
        assert not isinstance(stream, str)
        pieces = [p async for p in stream]
        await rag.finalize_storages()
        assert len(pieces) > 1
        assert isinstance(whole, str)
        return whole, "".join(pieces)

    whole, streamed = asyncio.run(main())
    assert streamed == whole


def test_sync_query_stream_is_an_iterator(openai_env: Scripted, tmp_path: Path) -> None:
    rag = make_rag(tmp_path)
    rag.insert(TEXTS)
    stream = rag.query("Who worked for Edison?", param=QueryParam(mode="local", stream=True))
    assert not isinstance(stream, str)
    text = "".join(stream)
    assert "Tesla" in text


def test_a_hundred_concurrent_queries(openai_env: Scripted, tmp_path: Path) -> None:
    async def main() -> list[object]:
        rag = make_rag(tmp_path)
        await rag.initialize_storages()
        await rag.ainsert(TEXTS)
        modes = ["local", "global", "hybrid", "naive", "mix"]
        questions = [
            rag.aquery(f"What did Tesla do? ({i})", param=QueryParam(mode=modes[i % 5])) for i in range(100)  # type: ignore[arg-type]
        ]
        answers = await asyncio.gather(*questions)
        await rag.finalize_storages()
        return list(answers)

    answers = asyncio.run(main())
    assert len(answers) == 100
    assert all(isinstance(a, str) and "Tesla" in a for a in answers)
