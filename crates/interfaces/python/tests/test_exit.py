"""The interpreter exits cleanly while the engine's threads are handing results to Python.

Regression: a script whose last call returned could die with SIGSEGV at exit (CI, a sync
``insert`` followed by ``get_docs_by_ids``): an engine thread still inside Python (waking the
event loop up with ``call_soon_threadsafe``) was ended by the finalizing interpreter, and its
unwind released Python objects while the main thread tore the interpreter down.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Many awaitables settling on a loop thread while the main thread returns and the interpreter
# exits; the loop is stopped (not closed), so the engine threads are still waking it up.
SCRIPT = """
import asyncio, os, threading
from lightrag_rs import LightRAG

rag = LightRAG(working_dir=os.environ["KB"])
loop = asyncio.new_event_loop()
runner = threading.Thread(target=loop.run_forever)
runner.start()
asyncio.run_coroutine_threadsafe(rag.initialize_storages(), loop).result()
for _ in range(300):
    asyncio.run_coroutine_threadsafe(rag.aget_docs_by_ids("nothing"), loop)
loop.call_soon_threadsafe(loop.stop)
print("exiting", flush=True)
"""

# Before the fix about one run in eight crashed on two idle cores; thirty runs all passing by
# chance would have been about one in seventy.
RUNS = 30


def test_exit_while_engine_threads_settle_awaitables_does_not_crash(tmp_path: Path) -> None:
    env = {**os.environ, "KB": str(tmp_path / "kb")}
    for name in list(env):
        if name.startswith(("LLM_", "EMBEDDING_", "RERANK_")):
            del env[name]
    for run in range(RUNS):
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"run {run}: exit status {done.returncode}\n{done.stderr}"
        assert done.stdout.strip() == "exiting"
