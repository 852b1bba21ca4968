"""LightRAG's model functions called from a user's own Python code (the callback path): one
HTTP client per argument set, and vectors that cross without a Python float per number."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

from conftest import DIM, Scripted
from lightrag_rs import EmbeddingError, LightRAG, LLMError, QueryParam, _native
from lightrag_rs.llm import _call
from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed
from lightrag_rs.utils import EmbeddingFunc

TEXT = "Grace Hopper worked on the Harvard Mark I. The Harvard Mark I was built by IBM in Endicott."


@pytest.fixture
def keyed() -> Iterator[Scripted]:
    """A scripted server that requires the API key ``right``."""
    server = Scripted(["--api-key", "right"])
    yield server
    server.stop()


@pytest.fixture
def clients(monkeypatch: pytest.MonkeyPatch) -> _native.DirectClients:
    """A fresh client cache in place of the process's one."""
    fresh = _native.DirectClients()
    monkeypatch.setattr(_call, "_CLIENTS", fresh)
    return fresh


def test_direct_calls_reuse_one_client_per_argument_set(scripted: Scripted, clients: _native.DirectClients) -> None:
    # every call used to read the settings and build a new HTTP client (and connection)
    async def main() -> None:
        for _ in range(3):
            assert await openai_complete_if_cache("scripted-chat", "Say hello", base_url=scripted.url, api_key="k")
        assert clients.sizes() == (1, 0)
        await openai_complete_if_cache("scripted-chat", "Say hello", base_url=scripted.url, api_key="other")
        assert clients.sizes() == (2, 0)
        for _ in range(2):
            await openai_embed.func(["a"], model="scripted-embed", base_url=scripted.url, api_key="k", embedding_dim=DIM)
        assert clients.sizes() == (2, 1)
        # the least recently used are dropped past 16 of a kind
        for i in range(20):
            await openai_complete_if_cache("scripted-chat", "Hi", base_url=scripted.url, api_key=f"key-{i}")
        assert clients.sizes() == (16, 1)

    asyncio.run(main())


def test_a_cached_client_does_not_serve_another_api_key_or_base_url(
    keyed: Scripted, scripted: Scripted, clients: _native.DirectClients
) -> None:
    async def main() -> None:
        assert await openai_complete_if_cache("scripted-chat", "Say hello", base_url=keyed.url, api_key="right")
        # the same call with another key is its own client, refused by the server
        with pytest.raises(LLMError, match="401"):
            await openai_complete_if_cache("scripted-chat", "Say hello", base_url=keyed.url, api_key="wrong")
        with pytest.raises(EmbeddingError, match="401"):
            await openai_embed.func(["a"], model="scripted-embed", base_url=keyed.url, api_key="wrong", embedding_dim=DIM)
        assert (await openai_embed.func(["a"], model="scripted-embed", base_url=keyed.url, api_key="right", embedding_dim=DIM)).shape == (
            1,
            DIM,
        )
        # another base_url with the first key goes to that server (which needs no key)
        assert await openai_complete_if_cache("scripted-chat", "Say hello", base_url=scripted.url, api_key="right")
        assert clients.sizes() == (3, 2)

    asyncio.run(main())


def test_direct_embeddings_are_writable_float32_rows_equal_to_the_lists(
    scripted: Scripted, clients: _native.DirectClients
) -> None:
    texts = ["Grace Hopper", "the Harvard Mark I", "IBM in Endicott"]
    flags = {
        "EMBEDDING_BINDING": "openai",
        "EMBEDDING_MODEL": "scripted-embed",
        "EMBEDDING_DIM": str(DIM),
        "EMBEDDING_BINDING_HOST": scripted.url,
        "EMBEDDING_BINDING_API_KEY": "k",
    }

    async def main() -> tuple[Any, Any, Any]:
        vectors = await openai_embed.func(texts, model="scripted-embed", base_url=scripted.url, api_key="k")
        lists = await clients.embed(False, flags, texts, False)
        empty = await openai_embed.func([], model="scripted-embed", base_url=scripted.url, api_key="k")
        return vectors, lists, empty

    vectors, lists, empty = asyncio.run(main())
    assert isinstance(vectors, np.ndarray)
    assert vectors.dtype == np.float32 and vectors.shape == (3, DIM)
    # the same numbers, row by row, as the list of lists the call gives without numpy
    assert vectors.tolist() == np.array(lists, dtype=np.float32).tolist()
    assert len({tuple(row) for row in vectors.tolist()}) == 3
    vectors[0, 0] = 0.5  # users may change what they got (LightRAG gives a writable array)
    assert isinstance(empty, np.ndarray) and empty.size == 0


def toy_vectors(texts: list[str]) -> np.ndarray:
    """A deterministic 32-number vector per text (letter counts)."""
    out = np.zeros((len(texts), 32), dtype=np.float32)
    for i, t in enumerate(texts):
        for ch in t.lower():
            out[i, ord(ch) % 32] += 1.0
    return out


def knowledge(tmp_path: Path, scripted: Scripted, to_python: Callable[[np.ndarray], Any]) -> Any:
    """What a local and a naive query find in a knowledge base indexed with ``to_python(vectors)``
    as what the Python embedding function returns."""

    async def llm(prompt: str, system_prompt: Any = None, history_messages: Any = None, **kwargs: Any) -> Any:
        return await openai_complete_if_cache(
            "scripted-chat", prompt, system_prompt=system_prompt, history_messages=history_messages or [],
            base_url=scripted.url, api_key="k", **kwargs,
        )

    def embed(texts: list[str]) -> Any:
        return to_python(toy_vectors(texts))

    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=llm, embedding_func=EmbeddingFunc(32, embed))
    rag.insert([TEXT, "Ada Lovelace wrote the first program for the Analytical Engine of Charles Babbage."])
    found = []
    for question in ("Who built the Harvard Mark I?", "Analytical Engine"):
        for mode in ("local", "naive"):
            data = rag.query_data(question, param=QueryParam(mode=mode, top_k=2, chunk_top_k=1))["data"]
            found.append(
                (
                    [e["entity_name"] for e in data["entities"]],
                    [(r["src_id"], r["tgt_id"]) for r in data["relationships"]],
                    [c["content"] for c in data["chunks"]],
                )
            )
    return found


def test_numpy_vectors_of_any_layout_are_read_as_their_rows(scripted: Scripted, tmp_path: Path) -> None:
    # numpy arrays are read as packed float32 values (they went through tolist, a Python float per
    # number): float64 and column-major arrays must give the same rows as a list of lists
    as_lists = knowledge(tmp_path / "lists", scripted, lambda v: v.tolist())
    as_f64 = knowledge(tmp_path / "f64", scripted, lambda v: np.asfortranarray(v.astype(np.float64)))
    as_f32 = knowledge(tmp_path / "f32", scripted, lambda v: v)
    assert as_lists == as_f64 == as_f32
    assert all(chunks for _, _, chunks in as_lists) and any(entities for entities, _, _ in as_lists)
