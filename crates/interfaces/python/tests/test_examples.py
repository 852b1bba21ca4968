"""LightRAG's documented examples (examples/, in our words) run unchanged but for the import
lines, against the scripted LLM server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import DIM, EXAMPLES, Scripted


def run_example(name: str, tmp_path: Path, env: dict[str, str]) -> str:
    full = {**os.environ, **env, "EXAMPLE_WORKING_DIR": str(tmp_path / "kb")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], cwd=tmp_path, env=full, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_quickstart_answers_in_every_classic_mode(openai_env: Scripted, tmp_path: Path) -> None:
    out = run_example("quickstart.py", tmp_path, {})
    for mode in ("naive", "local", "global", "hybrid", "mix"):
        assert f"--- {mode} ---" in out
    # the scripted model answers from the context it was given: the story came back
    assert "Scrooge" in out
    assert (tmp_path / "kb" / "lightrag.db").exists()


def test_openai_compatible_example_with_own_functions(scripted: Scripted, tmp_path: Path) -> None:
    env = {
        "LLM_MODEL": "scripted-chat",
        "LLM_BINDING_HOST": scripted.url,
        "LLM_BINDING_API_KEY": "sk-scripted",
        "EMBEDDING_MODEL": "scripted-embed",
        "EMBEDDING_DIM": str(DIM),
    }
    out = run_example("openai_compatible.py", tmp_path, env)
    assert "polonium" in out or "Curie" in out
    assert "Sorbonne" in out


def test_ollama_example_with_sync_methods(scripted: Scripted, tmp_path: Path) -> None:
    host = scripted.url.removesuffix("/v1")
    env = {"OLLAMA_HOST": host, "LLM_MODEL": "scripted-chat", "EMBEDDING_MODEL": "scripted-embed", "EMBEDDING_DIM": str(DIM)}
    out = run_example("ollama_sync.py", tmp_path, env)
    assert "Ada Lovelace" in out or "Babbage" in out
