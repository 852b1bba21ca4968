"""Fixtures of the Python package's tests: the scripted LLM server and the `lightrag` binary
that `cargo test --workspace` built (scripts/test.sh runs these tests after it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[4]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# The scripted server answers embeddings with vectors of this size (LightRAG's openai_embed size).
DIM = 1536


def binary(name: str, env_name: str) -> Path:
    path = Path(os.environ.get(env_name, TARGET / "debug" / name))
    if not path.exists():
        pytest.fail(f"{path} is missing: build it first (cargo build -p lightrag-cli -p lightrag-scripted-llm)")
    return path


class Scripted:
    """A running scripted LLM server."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [str(binary("scripted-llm", "SCRIPTED_LLM_BIN")), "--dim", str(DIM), *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            self.stop()
            pytest.fail(f"the scripted LLM did not start (printed {self.url!r})")

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="session")
def scripted() -> Iterator[Scripted]:
    server = Scripted([])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def slow_scripted() -> Iterator[Scripted]:
    """A scripted server that answers every request after 150 ms (for cancellation)."""
    server = Scripted(["--delay-ms", "150"])
    yield server
    server.stop()


@pytest.fixture
def openai_env(scripted: Scripted, monkeypatch: pytest.MonkeyPatch) -> Scripted:
    """OPENAI_BASE_URL and OPENAI_API_KEY aimed at the scripted server, and no other model
    setting leaking in from the environment."""
    for name in list(os.environ):
        if name.startswith(("LLM_", "EMBEDDING_", "RERANK_")) or name in ("WORKING_DIR", "WORKSPACE"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", scripted.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-scripted")
    return scripted


@pytest.fixture
def lightrag_bin() -> Path:
    return binary("lightrag", "LIGHTRAG_BIN")
