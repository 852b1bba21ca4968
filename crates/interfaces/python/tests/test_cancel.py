"""A cancelled ``ainsert`` leaves the store consistent, and the next insert resumes it."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from conftest import DIM, Scripted
from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed
from lightrag_rs.utils import EmbeddingFunc

# enough text for several chunks, so that the cancel lands mid-document
TEXT = " ".join(
    f"Station {i} of the survey lies near river {i % 7} and reports to office {i % 5}." for i in range(400)
)


def test_cancelled_ainsert_resumes_on_the_next_call(slow_scripted: Scripted, tmp_path: Path) -> None:
    url = slow_scripted.url
    llm = partial(openai_complete_if_cache, "scripted-chat", base_url=url, api_key="k")
    embedding = EmbeddingFunc(DIM, partial(openai_embed.func, model="scripted-embed", base_url=url, api_key="k"))

    async def main() -> None:
        rag = LightRAG(working_dir=str(tmp_path), llm_model_func=llm, embedding_func=embedding, chunk_token_size=200)
        await rag.initialize_storages()
        task = asyncio.create_task(rag.ainsert(TEXT, ids=["doc-survey"]))
        await asyncio.sleep(1.5)
        assert not task.done(), "the insert finished before it could be cancelled; make TEXT longer"
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        # the run stops after the chunks in flight and gives the document back (pending), rather
        # than finishing it in the background
        status = ""
        for _ in range(300):
            status = (await rag.aget_docs_by_ids("doc-survey"))["doc-survey"].status.value
            if status == "pending":
                break
            await asyncio.sleep(0.1)
        assert status == "pending"
        # the next call waits for the cancelled run to stop, then finishes the document
        await rag.ainsert(TEXT, ids=["doc-survey"])
        docs = await rag.aget_docs_by_ids("doc-survey")
        assert docs["doc-survey"].status.value == "processed"
        report = await rag.acheck()
        assert report["findings"] == [], report
        data = await rag.aquery_data("Which office does station 12 report to?", param=QueryParam(mode="naive"))
        assert data["data"]["chunks"]
        await rag.finalize_storages()

    asyncio.run(main())


SCRIPT = """
import os, sys
from functools import partial
from lightrag_rs import LightRAG
from lightrag_rs.llm.openai import openai_complete_if_cache, openai_embed
from lightrag_rs.utils import EmbeddingFunc
url = os.environ["SCRIPTED_URL"]
rag = LightRAG(
    working_dir=os.environ["KB"],
    llm_model_func=partial(openai_complete_if_cache, "scripted-chat", base_url=url, api_key="k"),
    embedding_func=EmbeddingFunc(int(os.environ["DIM"]), partial(openai_embed.func, model="e", base_url=url, api_key="k")),
    chunk_token_size=200,
)
print("inserting", flush=True)
rag.insert(os.environ["TEXT"], ids=["doc-survey"])
print(rag.get_docs_by_ids("doc-survey")["doc-survey"].status.value, flush=True)
"""


def test_ctrl_c_in_sync_insert_stops_cleanly_and_the_next_run_resumes(slow_scripted: Scripted, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "SCRIPTED_URL": slow_scripted.url, "KB": str(tmp_path), "DIM": str(DIM), "TEXT": TEXT}
    first = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert first.stdout is not None
    assert first.stdout.readline().strip() == "inserting"
    time.sleep(2.0)
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=120)
    assert first.returncode != 0, out
    assert "KeyboardInterrupt" in err
    second = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["inserting", "processed"]
