"""LightRAG's own model functions select the native clients (no Python in the hot path), and the
engine works without holding the GIL."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import Scripted
from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm import _call
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed


def test_passed_native_functions_never_call_python(openai_env: Scripted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_python(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Python path of a native function was called")

    monkeypatch.setattr(_call, "complete", no_python)
    monkeypatch.setattr(_call, "embed", no_python)
    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    rag.insert("Katherine Johnson calculated trajectories for NASA.")
    answer = rag.query("Who calculated trajectories?", param=QueryParam(mode="hybrid"))
    assert isinstance(answer, str) and "Katherine Johnson" in answer


def test_other_python_threads_run_while_the_engine_works(openai_env: Scripted, tmp_path: Path) -> None:
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    rag.insert("Warm-up text so that the store is open.")
    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks
        rag.insert(" ".join(f"Sentence {i} about the Apollo guidance computer." for i in range(300)))
        during = ticks - before
    finally:
        stop.set()
        counter.join()
    # the counter kept running during the insert: the GIL was released while Rust worked
    assert during > 10
