"""One direct model call through the native HTTP clients (shared by ``openai`` and ``ollama``)."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any, AsyncIterator, Iterable, Optional, Union

from .. import _native

# The native clients of direct calls, one per argument set (model, host, key …): building a
# client for each call cost more than the call itself.
_CLIENTS = _native.DirectClients()

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
    result = await _CLIENTS.complete(False, flags, prompt, system_prompt, history_json(history_messages), json_mode, stream)
    return result  # type: ignore[no-any-return]


# The vector size of models called without ``embedding_dim``, learnt from their first answer:
# (binding, host, model) → size.
_LEARNT_DIMS: dict[tuple[str, str, str], int] = {}
_DIM_IN_ERROR = re.compile(r"server returned dim (\d+)")


def _numpy() -> Any:
    """numpy, or None when it is not installed."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


async def embed(flags: dict[str, str], texts: list[str]) -> Any:
    """Embeds ``texts``: a numpy array when numpy is installed, else a list of lists.

    Without ``EMBEDDING_DIM`` in ``flags`` (a direct call that did not say the size), the size
    the model answered with is learnt from its first answer and used from then on."""
    from ..exceptions import ConfigurationError, EmbeddingError

    key = (flags.get("EMBEDDING_BINDING", ""), flags.get("EMBEDDING_BINDING_HOST", ""), flags.get("EMBEDDING_MODEL", ""))
    if "EMBEDDING_DIM" not in flags and key in _LEARNT_DIMS:
        flags = {**flags, "EMBEDDING_DIM": str(_LEARNT_DIMS[key])}
    np = _numpy()
    packed = np is not None
    try:
        vectors = await _CLIENTS.embed(False, flags, list(texts), packed)
    except (EmbeddingError, ConfigurationError) as e:
        if "EMBEDDING_DIM" in flags and key not in _LEARNT_DIMS:
            raise
        probe = {**flags, "EMBEDDING_DIM": "1"}
        try:
            vectors = await _CLIENTS.embed(False, probe, list(texts), packed)
        except EmbeddingError as probed:
            found = _DIM_IN_ERROR.search(str(probed))
            if found is None:
                raise e from probed
            _LEARNT_DIMS[key] = int(found.group(1))
            vectors = await _CLIENTS.embed(False, {**flags, "EMBEDDING_DIM": found.group(1)}, list(texts), packed)
    if np is None:
        return vectors
    # one row per text, read from the packed float32 values (no Python float per number)
    array = np.frombuffer(vectors, dtype="<f4")
    return array.reshape(len(texts), -1) if len(texts) else array
