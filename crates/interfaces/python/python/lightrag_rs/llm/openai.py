"""LightRAG's ``lightrag.llm.openai``: chat and embedding functions for OpenAI and any
OpenAI-compatible server.

Passed to ``LightRAG`` (``llm_model_func=gpt_4o_mini_complete``,
``embedding_func=openai_embed`` or ``EmbeddingFunc(…, func=partial(openai_embed.func, model=…,
base_url=…, api_key=…))``) they select the engine's native OpenAI client: no Python in the hot
path. Called from your own code, each makes one request through the same client.
``base_url`` defaults to ``OPENAI_BASE_URL``, ``api_key`` to ``OPENAI_API_KEY``.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Optional, Union

from .._bindings import Binding, llm_flags, mark
from ..utils import EmbeddingFunc, wrap_embedding_func_with_attrs
from . import _call


@mark(Binding(role="llm", binding="openai", model_arg="model", positional=("model", "prompt")))
async def openai_complete_if_cache(
    model: str,
    prompt: str,
    system_prompt: Optional[str] = None,
    history_messages: Optional[list[dict[str, Any]]] = None,
    enable_cot: bool = False,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    token_tracker: Any = None,
    stream: Optional[bool] = None,
    timeout: Optional[int] = None,
    keyword_extraction: bool = False,
    **kwargs: Any,
) -> Union[str, AsyncIterator[str]]:
    """One chat completion of ``model``; an async iterator of pieces when ``stream``."""
    del enable_cot, token_tracker
    _call.warn_unused("openai_complete_if_cache", kwargs)
    flags = llm_flags(
        Binding(role="llm", binding="openai"), {"base_url": base_url, "api_key": api_key, "timeout": timeout}, model, {}
    )
    json_mode = keyword_extraction or kwargs.get("response_format") is not None
    return await _call.complete(flags, prompt, system_prompt, history_messages, json_mode, bool(stream))


def _fixed(model: str) -> Any:
    @mark(Binding(role="llm", binding="openai", model=model))
    async def complete(
        prompt: str,
        system_prompt: Optional[str] = None,
        history_messages: Optional[list[dict[str, Any]]] = None,
        keyword_extraction: bool = False,
        **kwargs: Any,
    ) -> Union[str, AsyncIterator[str]]:
        return await openai_complete_if_cache(
            model,
            prompt,
            system_prompt=system_prompt,
            history_messages=history_messages,
            keyword_extraction=keyword_extraction,
            **kwargs,
        )

    complete.__doc__ = f"One chat completion of {model} (LightRAG's signature)."
    return complete


gpt_4o_mini_complete = _fixed("gpt-4o-mini")
gpt_4o_complete = _fixed("gpt-4o")
gpt_4o_mini_complete.__name__ = gpt_4o_mini_complete.__qualname__ = "gpt_4o_mini_complete"
gpt_4o_complete.__name__ = gpt_4o_complete.__qualname__ = "gpt_4o_complete"


@mark(Binding(role="llm", binding="openai", model_arg="model"))
async def openai_complete(
    prompt: str,
    system_prompt: Optional[str] = None,
    history_messages: Optional[list[dict[str, Any]]] = None,
    keyword_extraction: bool = False,
    **kwargs: Any,
) -> Union[str, AsyncIterator[str]]:
    """One chat completion of the model ``LightRAG(llm_model_name=…)`` names (called directly:
    the ``model`` keyword, else ``gpt-4o-mini``)."""
    model = str(kwargs.pop("model", None) or "gpt-4o-mini")
    return await openai_complete_if_cache(
        model,
        prompt,
        system_prompt=system_prompt,
        history_messages=history_messages,
        keyword_extraction=keyword_extraction,
        **kwargs,
    )


@wrap_embedding_func_with_attrs(embedding_dim=1536, max_token_size=8192, model_name="text-embedding-3-small")
@mark(Binding(role="embed", binding="openai", model="text-embedding-3-small", model_arg="model", positional=("texts",)))
async def openai_embed(
    texts: list[str],
    model: str = "text-embedding-3-small",
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    embedding_dim: Optional[int] = None,
    **kwargs: Any,
) -> Any:
    """Embeds ``texts`` with ``model`` (a numpy array, one row per text)."""
    _call.warn_unused("openai_embed", kwargs)
    from .._bindings import embed_flags

    flags = embed_flags(
        Binding(role="embed", binding="openai", model=model), {"base_url": base_url, "api_key": api_key}, embedding_dim
    )
    return await _call.embed(flags, texts)


assert isinstance(openai_embed, EmbeddingFunc)

__all__ = [
    "openai_complete_if_cache",
    "openai_complete",
    "gpt_4o_mini_complete",
    "gpt_4o_complete",
    "openai_embed",
]
