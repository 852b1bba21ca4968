"""One knowledge base, every front end: built from Python, opened by the `lightrag` CLI and served
by `lightrag serve`; built by the CLI, opened from Python."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from conftest import DIM, Scripted
from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed


def cli_env(scripted: Scripted, working_dir: Path) -> dict[str, str]:
    """The CLI's settings for the models `gpt_4o_mini_complete` and `openai_embed` stand for."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "EMBEDDING_", "OPENAI_"))}
    return {
        **keep,
        "WORKING_DIR": str(working_dir),
        "LLM_BINDING": "openai",
        "LLM_MODEL": "gpt-4o-mini",
        "LLM_BINDING_HOST": scripted.url,
        "LLM_BINDING_API_KEY": "sk-scripted",
        "EMBEDDING_BINDING": "openai",
        "EMBEDDING_MODEL": "text-embedding-3-small",
        "EMBEDDING_DIM": str(DIM),
        "EMBEDDING_BINDING_HOST": scripted.url,
        "EMBEDDING_BINDING_API_KEY": "sk-scripted",
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_python_built_kb_is_opened_by_the_cli_and_served(
    openai_env: Scripted, lightrag_bin: Path, tmp_path: Path
) -> None:
    rag = LightRAG(working_dir=str(tmp_path), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    rag.insert("Hedy Lamarr co-invented frequency hopping with George Antheil.", file_paths=["lamarr.txt"])
    env = cli_env(openai_env, tmp_path)
    status = subprocess.run([str(lightrag_bin), "status"], env=env, capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr
    assert "lamarr.txt" in status.stdout or "processed" in status.stdout
    query = subprocess.run(
        [str(lightrag_bin), "query", "--mode", "naive", "--only-context", "Who invented frequency hopping?"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert query.returncode == 0, query.stderr
    assert "Hedy Lamarr" in query.stdout

    port = free_port()
    server = subprocess.Popen(
        [str(lightrag_bin), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        body = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/query/data",
                    data=json.dumps({"query": "Who invented frequency hopping?", "mode": "naive"}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    body = answer.read()
                break
            except OSError:
                if server.poll() is not None:
                    raise AssertionError(f"lightrag serve stopped: {server.stderr.read() if server.stderr else ''}")
                time.sleep(0.2)
        data = json.loads(body)
        assert any("Hedy Lamarr" in c["content"] for c in data["data"]["chunks"])
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_cli_built_kb_is_opened_from_python(openai_env: Scripted, lightrag_bin: Path, tmp_path: Path) -> None:
    doc = tmp_path / "inputs" / "hopper.txt"
    doc.parent.mkdir()
    doc.write_text("Grace Hopper wrote the first compiler, the A-0 System.")
    kb = tmp_path / "kb"
    env = cli_env(openai_env, kb)
    done = subprocess.run([str(lightrag_bin), "insert", str(doc)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rag = LightRAG(working_dir=str(kb), llm_model_func=gpt_4o_mini_complete, embedding_func=openai_embed)
    data = rag.query_data("Who wrote the first compiler?", param=QueryParam(mode="naive"))
    assert [c["file_path"] for c in data["data"]["chunks"]] == ["hopper.txt"]
    answer = rag.query("Who wrote the first compiler?", param=QueryParam(mode="mix"))
    assert isinstance(answer, str) and "Grace Hopper" in answer
