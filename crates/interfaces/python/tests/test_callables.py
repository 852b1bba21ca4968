"""Python functions as the engine's LLM and embedding ports: sync and async, and ones that raise."""

from __future__ import annotations

import asyncio
import threading
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import DIM, Scripted
from lightrag_rs import DocumentsFailedError, LightRAG, QueryParam
from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed
from lightrag_rs.utils import EmbeddingFunc

TEXT = "Grace Hopper worked on the Harvard Mark I. The Harvard Mark I was built by IBM in Endicott."


def toy_vectors(texts: list[str]) -> np.ndarray:
    """A deterministic 32-number vector per text (letter counts)."""
    out = np.zeros((len(texts), 32), dtype=np.float32)
    for i, t in enumerate(texts):
        for ch in t.lower():
            out[i, ord(ch) % 32] += 1.0
    return out


def test_sync_and_async_python_functions_index_and_answer(scripted: Scripted, tmp_path: Path) -> None:
    llm_threads: set[str] = set()
    calls = {"llm": 0, "embed": 0}

    async def llm(
        prompt: str, system_prompt: Any = None, history_messages: Any = None, keyword_extraction: bool = False, **kw: Any
    ) -> Any:
        calls["llm"] += 1
        llm_threads.add(threading.current_thread().name)
        return await openai_complete_if_cache(
            "scripted-chat",
            prompt,
            system_prompt=system_prompt,
            history_messages=history_messages,
            keyword_extraction=keyword_extraction,
            base_url=scripted.url,
            api_key="k",
        )

    def embed(texts: list[str]) -> np.ndarray:
        calls["embed"] += 1
        return toy_vectors(texts)

    async def main() -> str:
        rag = LightRAG(
            working_dir=str(tmp_path),
            llm_model_func=llm,
            embedding_func=EmbeddingFunc(embedding_dim=32, func=embed),
        )
        await rag.initialize_storages()
        await rag.ainsert(TEXT)
        answer = await rag.aquery("Who built the Harvard Mark I?", param=QueryParam(mode="hybrid"))
        await rag.finalize_storages()
        assert isinstance(answer, str)
        return answer

    answer = asyncio.run(main())
    assert "Harvard Mark I" in answer
    assert calls["llm"] >= 2 and calls["embed"] >= 2
    # the coroutines ran on the caller's loop (the main thread), not on a thread of ours
    assert llm_threads == {"MainThread"}


def test_sync_llm_function_runs_off_the_event_loop(scripted: Scripted, tmp_path: Path) -> None:
    seen: list[str] = []
    extraction = (
        "entity<|#|>Grace Hopper<|#|>person<|#|>A computer scientist.\n"
        "entity<|#|>Harvard Mark I<|#|>artifact<|#|>An early computer.\n"
        "relation<|#|>Grace Hopper<|#|>Harvard Mark I<|#|>programming<|#|>Hopper programmed the Mark I.\n"
        "<|COMPLETE|>"
    )

    def llm(prompt: str, system_prompt: Any = None, history_messages: Any = None, **kw: Any) -> str:
        seen.append(threading.current_thread().name)
        if kw.get("keyword_extraction"):
            return '{"high_level_keywords": ["computers"], "low_level_keywords": ["Grace Hopper"]}'
        if "---Input Text---" in prompt or history_messages:
            return extraction
        return "Grace Hopper programmed the Harvard Mark I."

    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=llm, embedding_func=EmbeddingFunc(32, toy_vectors))
    rag.insert(TEXT)
    data = rag.query_data("Who is Grace Hopper?", param=QueryParam(mode="local"))
    names = {e["entity_name"] for e in data["data"]["entities"]}
    assert "Grace Hopper" in names
    assert rag.query("Who is Grace Hopper?", param=QueryParam(mode="local")) == "Grace Hopper programmed the Harvard Mark I."
    assert seen and "MainThread" not in seen


def test_llm_function_that_raises_fails_the_document_with_its_message(tmp_path: Path) -> None:
    def llm(prompt: str, **kw: Any) -> str:
        raise ValueError("quota exhausted for this key")

    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=llm, embedding_func=EmbeddingFunc(32, toy_vectors))
    with pytest.raises(DocumentsFailedError) as failed:
        rag.insert(TEXT, track_id="t-raises")
    message = str(failed.value)
    assert "1 document(s) failed" in message
    assert "the Python llm_model_func raised ValueError: quota exhausted for this key" in message
    # the failure is recorded on the document, as LightRAG records it
    (doc,) = rag.get_docs_by_track_id("t-raises").values()
    assert doc.status.value == "failed"
    assert doc.error_msg is not None and "quota exhausted for this key" in doc.error_msg


def test_embedding_function_that_raises_is_an_error_naming_it(tmp_path: Path) -> None:
    async def embed(texts: list[str]) -> np.ndarray:
        raise RuntimeError("embedding server down")

    rag = LightRAG(working_dir=str(tmp_path), embedding_func=EmbeddingFunc(32, embed))
    with pytest.raises(DocumentsFailedError, match="the Python embedding_func raised RuntimeError: embedding server down"):
        rag.insert(TEXT)


def test_embedding_function_with_the_wrong_size_is_refused(tmp_path: Path) -> None:
    rag = LightRAG(working_dir=str(tmp_path), embedding_func=EmbeddingFunc(16, toy_vectors))
    with pytest.raises(DocumentsFailedError, match="returned vectors of 32 numbers, but embedding_dim is 16"):
        rag.insert(TEXT)


def test_native_functions_called_from_python(scripted: Scripted) -> None:
    async def main() -> None:
        text = await openai_complete_if_cache("scripted-chat", "Say hello", base_url=scripted.url, api_key="k")
        assert isinstance(text, str) and text
        vectors = await openai_embed.func(["a", "b"], model="scripted-embed", base_url=scripted.url, api_key="k")
        assert isinstance(vectors, np.ndarray) and vectors.shape == (2, DIM)
        bound = partial(openai_embed.func, model="scripted-embed", base_url=scripted.url, api_key="k")
        assert (await bound(["c"])).shape == (1, DIM)

    asyncio.run(main())


def test_another_embedding_model_is_refused_until_reembed(tmp_path: Path) -> None:
    from lightrag_rs import LightRAGRsError

    def small(texts: list[str]) -> np.ndarray:
        return toy_vectors(texts)[:, :16]

    LightRAG(working_dir=str(tmp_path), embedding_func=EmbeddingFunc(32, toy_vectors, model_name="toy-32")).insert(TEXT)
    other = LightRAG(working_dir=str(tmp_path), embedding_func=EmbeddingFunc(16, small, model_name="toy-16"))
    with pytest.raises(LightRAGRsError, match="built with embedding model 'toy-32' \\(dim 32\\) but 'toy-16' \\(dim 16\\)"):
        other.query_data("Harvard Mark I", param=QueryParam(mode="naive"))
    other.reembed()
    data = other.query_data("Harvard Mark I", param=QueryParam(mode="naive"))
    assert data["status"] == "success" and data["data"]["chunks"]


class RateLimitError(Exception):
    """Named like the openai SDK's: the gateway retries it."""


def test_rate_limited_python_function_is_retried_by_the_gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_RETRY_BASE_MS", "10")
    failures = {"left": 2}
    extraction = "entity<|#|>Grace Hopper<|#|>person<|#|>A computer scientist.\n<|COMPLETE|>"

    def llm(prompt: str, system_prompt: Any = None, history_messages: Any = None, **kw: Any) -> str:
        if failures["left"] > 0:
            failures["left"] -= 1
            raise RateLimitError("slow down")
        return extraction

    rag = LightRAG(
        working_dir=str(tmp_path), llm_model_func=llm, embedding_func=EmbeddingFunc(32, toy_vectors), entity_extract_max_gleaning=0
    )
    rag.insert("Grace Hopper wrote compilers.")
    assert failures["left"] == 0
    names = {e["entity_name"] for e in rag.query_data("Grace Hopper", param=QueryParam(mode="local"))["data"]["entities"]}
    assert "Grace Hopper" in names
