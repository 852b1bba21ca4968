"""LightRAG 1.5.7 against lightrag_rs through LightRAG's Python API (BENCHMARKS.md, "Python package").

One configuration per process, so that the CPU time of the whole process (every thread, Rust's
too) is the configuration's own:

* ``lightrag``  — LightRAG 1.5.7 (``lightrag-hku``) with its own ``openai_complete_if_cache`` and
  ``openai_embed``;
* ``callbacks`` — lightrag_rs with the same program, the imports switched: the model functions are
  Python callables the engine calls back (each of them makes its request natively);
* ``native``    — lightrag_rs with LightRAG's functions passed directly, which selects the native
  clients (no Python in the hot path).

The model is the scripted OpenAI-compatible server (``scripted-llm``, another process, answering
at once), so the figures are the library's own cost. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import resource
import statistics
import time
from functools import partial
from pathlib import Path
from typing import Any

DIM = 1536
TOPICS = [
    "United States", "Congress", "Great Britain", "Senate", "Mexico", "Spain", "France", "Navy",
    "Treasury", "Constitution", "Cuba", "Japan", "China", "Russia", "Europe", "Pacific", "Union",
    "Washington", "America", "New York",
]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def corpus(folder: Path, chunks: int, chunk_tokens: int, overlap: int) -> tuple[list[str], list[str], int]:
    """Documents in file-name order until at least ``chunks`` chunks of ``chunk_tokens`` tokens
    (LightRAG's token chunking: one chunk starts every ``chunk_tokens - overlap`` tokens)."""
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    texts: list[str] = []
    names: list[str] = []
    total = 0
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        texts.append(text)
        names.append(path.name)
        total += max(1, math.ceil(len(encoding.encode(text)) / (chunk_tokens - overlap)))
        if total >= chunks:
            break
    return texts, names, total


def build(impl: str, url: str, work: Path) -> Any:
    if impl == "lightrag":
        from lightrag import LightRAG
        from lightrag.llm.openai import openai_complete_if_cache, openai_embed
        from lightrag.utils import EmbeddingFunc
    else:
        from lightrag_rs import LightRAG  # type: ignore[no-redef]
        from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed  # type: ignore[no-redef]
        from lightrag_rs.utils import EmbeddingFunc  # type: ignore[no-redef]

    if impl == "native":
        llm: Any = partial(openai_complete_if_cache, "gpt-4o-mini", base_url=url, api_key="sk-bench")
        embed: Any = partial(openai_embed.func, model="text-embedding-3-small", base_url=url, api_key="sk-bench")
    else:

        async def llm(prompt: str, system_prompt: Any = None, history_messages: Any = None, **kwargs: Any) -> Any:
            return await openai_complete_if_cache(
                "gpt-4o-mini",
                prompt,
                system_prompt=system_prompt,
                history_messages=history_messages or [],
                base_url=url,
                api_key="sk-bench",
                **kwargs,
            )

        async def embed(texts: list[str]) -> Any:
            return await openai_embed.func(texts, model="text-embedding-3-small", base_url=url, api_key="sk-bench")

    return LightRAG(
        working_dir=str(work),
        llm_model_func=llm,
        embedding_func=EmbeddingFunc(embedding_dim=DIM, max_token_size=8192, func=embed),
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    texts, names, chunk_count = corpus(Path(args.corpus), args.chunks, 1200, 100)
    load_before = os.getloadavg()[0]
    rag = build(args.impl, args.url, Path(args.work))
    for name in ("lightrag", "httpx", "httpx2", "openai", ""):
        logging.getLogger(name).setLevel(logging.ERROR)
    await rag.initialize_storages()
    if args.impl == "lightrag":
        from lightrag.kg.shared_storage import initialize_pipeline_status

        await initialize_pipeline_status()
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    await rag.ainsert(texts, file_paths=names)
    index_cpu, index_wall = cpu_seconds() - cpu0, time.perf_counter() - wall0

    if args.impl == "lightrag":
        from lightrag import QueryParam
    else:
        from lightrag_rs import QueryParam  # type: ignore[no-redef, assignment]
    latencies: list[float] = []
    query_cpu0 = cpu_seconds()
    for mode in ("local", "global", "mix"):
        for i in range(args.queries):
            question = f"What is said about {TOPICS[i % len(TOPICS)]} ({mode} {i})?"
            started = time.perf_counter()
            context = await rag.aquery(question, param=QueryParam(mode=mode, only_need_context=True, enable_rerank=False))
            latencies.append((time.perf_counter() - started) * 1000)
            assert isinstance(context, str) and context
    query_cpu_ms = (cpu_seconds() - query_cpu0) * 1000 / len(latencies)
    await rag.finalize_storages()
    latencies.sort()
    return {
        "impl": args.impl,
        "documents": len(texts),
        "chunks": chunk_count,
        "chunks_asked": args.chunks,
        "load_1min_before": round(load_before, 1),
        "load_1min_after": round(os.getloadavg()[0], 1),
        "index_wall_s": round(index_wall, 2),
        "index_cpu_s": round(index_cpu, 2),
        "query_context_p50_ms": round(statistics.median(latencies), 2),
        "query_context_p90_ms": round(latencies[int(len(latencies) * 0.9) - 1], 2),
        "query_cpu_ms_mean": round(query_cpu_ms, 2),
        "queries": len(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=["lightrag", "callbacks", "native"], required=True)
    parser.add_argument("--url", required=True, help="the scripted server's /v1 URL")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--chunks", type=int, default=500)
    parser.add_argument("--queries", type=int, default=20, help="questions per mode (local, global, mix)")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print(json.dumps(asyncio.run(run(args))), flush=True)


if __name__ == "__main__":
    main()
