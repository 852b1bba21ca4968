"""One direct model call through the native HTTP clients (shared by ``openai`` and ``ollama``)."""

from __future__ import annotations

import json
import warnings
from typing import Any, AsyncIterator, Iterable, Optional, Union

from .. import _native

# keyword arguments LightRAG passes to model functions that mean nothing to one direct call
_SILENT = {"hashing_kv", "token_tracker", "enable_cot", "_priority", "response_format", "model_name"}


def history_json(history_messages: Optional[Iterable[dict[str, Any]]]) -> str:
    """``history_messages`` as the JSON list the native call reads."""
    turns = [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in history_messages or []]
    return json.dumps(turns)


def warn_unused(function: str, kwargs: dict[str, Any]) -> None:
    """Warns, by name, about keyword arguments this function does not act on."""
    unused = sorted(k for k in kwargs if k not in _SILENT)
    if unused:
        warnings.warn(
            f"{function}: lightrag_rs does not act on {', '.join(unused)}; they are ignored",
            RuntimeWarning,
            stacklevel=3,
        )


async def complete(
    flags: dict[str, str],
    prompt: str,
    system_prompt: Optional[str],
    history_messages: Optional[Iterable[dict[str, Any]]],
    json_mode: bool,
    stream: bool,
) -> Union[str, AsyncIterator[str]]:
    """Sends one chat request; the text, or an async iterator of its pieces when ``stream``."""
    result = await _native.complete(False, flags, prompt, system_prompt, history_json(history_messages), json_mode, stream)
    return result  # type: ignore[no-any-return]


async def embed(flags: dict[str, str], texts: list[str]) -> Any:
    """Embeds ``texts``: a numpy array when numpy is installed, else a list of lists."""
    vectors = await _native.embed(False, flags, list(texts))
    try:
        import numpy as np
    except ImportError:
        return vectors
    return np.array(vectors, dtype=np.float32)
