"""LightRAG's ``lightrag.llm.ollama``: chat and embedding functions for an Ollama server.

Passed to ``LightRAG`` (``llm_model_func=ollama_model_complete`` with ``llm_model_name`` and
``llm_model_kwargs={"host": …, "options": {"num_ctx": …}}``, or
``EmbeddingFunc(…, func=partial(ollama_embed.func, embed_model=…, host=…))``) they select the
engine's native Ollama client. Called from your own code, each makes one request.
"""

from __future__ import annotations

import os
from typing import Any, AsyncIterator, Optional, Union

from .._bindings import Binding, embed_flags, llm_flags, mark
from ..utils import wrap_embedding_func_with_attrs
from . import _call


@mark(Binding(role="llm", binding="ollama", model_arg="model", positional=("model", "prompt")))
async def ollama_model_if_cache(
    model: str,
    prompt: str,
    system_prompt: Optional[str] = None,
    history_messages: Optional[list[dict[str, Any]]] = None,
    enable_cot: bool = False,
    **kwargs: Any,
) -> Union[str, AsyncIterator[str]]:
    """One chat completion of ``model`` on the Ollama server ``host`` (default ``OLLAMA_HOST`` or
    http://localhost:11434); an async iterator of pieces when ``stream``."""
    del enable_cot
    stream = bool(kwargs.pop("stream", False))
    json_mode = bool(kwargs.pop("keyword_extraction", False)) or kwargs.pop("format", None) == "json"
    bound: dict[str, Any] = {k: kwargs.pop(k) for k in ("host", "api_key", "options", "timeout") if k in kwargs}
    _call.warn_unused("ollama_model_complete", kwargs)
    flags = llm_flags(Binding(role="llm", binding="ollama"), bound, model, {})
    return await _call.complete(flags, prompt, system_prompt, history_messages, json_mode, stream)


@mark(Binding(role="llm", binding="ollama", model_arg="model"))
async def ollama_model_complete(
    prompt: str,
    system_prompt: Optional[str] = None,
    history_messages: Optional[list[dict[str, Any]]] = None,
    keyword_extraction: bool = False,
    **kwargs: Any,
) -> Union[str, AsyncIterator[str]]:
    """One chat completion of the model ``LightRAG(llm_model_name=…)`` names (called directly:
    the ``model`` keyword, else ``LLM_MODEL``)."""
    model = str(kwargs.pop("model", None) or os.environ.get("LLM_MODEL") or "qwen2.5:latest")
    return await ollama_model_if_cache(
        model,
        prompt,
        system_prompt=system_prompt,
        history_messages=history_messages,
        keyword_extraction=keyword_extraction,
        **kwargs,
    )


@wrap_embedding_func_with_attrs(embedding_dim=1024, max_token_size=8192, model_name="bge-m3:latest")
@mark(Binding(role="embed", binding="ollama", model="bge-m3:latest", model_arg="embed_model", positional=("texts",)))
async def ollama_embed(texts: list[str], embed_model: str = "bge-m3:latest", **kwargs: Any) -> Any:
    """Embeds ``texts`` with ``embed_model`` on the Ollama server ``host`` (a numpy array)."""
    bound: dict[str, Any] = {k: kwargs.pop(k) for k in ("host", "api_key") if k in kwargs}
    dim = kwargs.pop("embedding_dim", None)
    kwargs.pop("max_token_size", None)
    _call.warn_unused("ollama_embed", kwargs)
    flags = embed_flags(Binding(role="embed", binding="ollama", model=embed_model), bound, dim)
    return await _call.embed(flags, texts)


__all__ = ["ollama_model_if_cache", "ollama_model_complete", "ollama_embed"]
