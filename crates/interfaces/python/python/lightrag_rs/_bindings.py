"""Native bindings: LightRAG's own model functions (``gpt_4o_mini_complete``, ``openai_embed``,
``ollama_model_complete`` …), recognised when passed to ``LightRAG``, become settings of the
engine's HTTP clients, so no Python runs in the hot path.

Each such function carries ``_lightrag_rs_binding``: the binding, the role, and how its
arguments (including those bound with ``functools.partial``) name the model, host and key.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypeVar

ATTR = "_lightrag_rs_binding"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Binding:
    """What a native function is: ``role`` (``llm`` or ``embed``), ``binding`` (``openai`` or
    ``ollama``) and a fixed ``model`` (``gpt_4o_mini_complete``) or none."""

    role: str
    binding: str
    model: Optional[str] = None
    model_arg: Optional[str] = None
    positional: tuple[str, ...] = field(default_factory=tuple)


def mark(binding: Binding) -> Callable[[F], F]:
    """Marks a function as a native binding."""

    def wrap(func: F) -> F:
        setattr(func, ATTR, binding)
        return func

    return wrap


def unwrap(func: Any) -> tuple[Optional[Binding], dict[str, Any]]:
    """The binding of ``func`` (itself, or under ``functools.partial``) and the arguments bound
    to it by name; ``(None, {})`` for any other callable."""
    bound: dict[str, Any] = {}
    while isinstance(func, functools.partial):
        binding = getattr(func.func, ATTR, None)
        names = binding.positional if isinstance(binding, Binding) else ()
        for name, value in zip(names, func.args):
            bound.setdefault(name, value)
        for name, value in func.keywords.items():
            bound.setdefault(name, value)
        func = func.func
    binding = getattr(func, ATTR, None)
    return (binding if isinstance(binding, Binding) else None), bound


def openai_host(base_url: Optional[str]) -> Optional[str]:
    """The OpenAI endpoint: ``base_url``, else ``OPENAI_BASE_URL`` (as the openai client reads it)."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")


def llm_flags(binding: Binding, bound: dict[str, Any], model_name: str, kwargs: dict[str, Any]) -> dict[str, str]:
    """Settings (LightRAG's environment names) for a native chat binding."""
    args = {**kwargs, **bound}
    model = binding.model or args.get(binding.model_arg or "model") or model_name
    flags = {"LLM_BINDING": binding.binding, "LLM_MODEL": str(model)}
    if binding.binding == "openai":
        host = openai_host(args.get("base_url"))
        key = args.get("api_key") or os.environ.get("OPENAI_API_KEY")
    else:
        host = args.get("host") or os.environ.get("OLLAMA_HOST")
        key = args.get("api_key")
        options = args.get("options") or {}
        if isinstance(options, dict) and options.get("num_ctx"):
            flags["OLLAMA_LLM_NUM_CTX"] = str(options["num_ctx"])
    if host:
        flags["LLM_BINDING_HOST"] = str(host)
    if key:
        flags["LLM_BINDING_API_KEY"] = str(key)
    if args.get("timeout"):
        flags["LLM_TIMEOUT"] = str(int(args["timeout"]))
    return flags


def embed_flags(binding: Binding, bound: dict[str, Any], dim: Optional[int]) -> dict[str, str]:
    """Settings for a native embedding binding."""
    model = bound.get(binding.model_arg or "model") or binding.model
    flags = {"EMBEDDING_BINDING": binding.binding}
    if model:
        flags["EMBEDDING_MODEL"] = str(model)
    if dim:
        flags["EMBEDDING_DIM"] = str(dim)
    if binding.binding == "openai":
        host = openai_host(bound.get("base_url"))
        key = bound.get("api_key") or os.environ.get("OPENAI_API_KEY")
    else:
        host = bound.get("host") or os.environ.get("OLLAMA_HOST")
        key = bound.get("api_key")
    if host:
        flags["EMBEDDING_BINDING_HOST"] = str(host)
    if key:
        flags["EMBEDDING_BINDING_API_KEY"] = str(key)
    return flags
