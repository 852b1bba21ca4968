"""LightRAG's ``lightrag.utils``: ``EmbeddingFunc``, ``wrap_embedding_func_with_attrs``,
``setup_logger`` and ``logger``."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, Optional

logger = logging.getLogger("lightrag")


@dataclass
class EmbeddingFunc:
    """An embedding function with its vector size, as LightRAG's ``EmbeddingFunc``.

    ``func(texts)`` returns one vector per text (a numpy array or a list of lists), directly
    or as an awaitable. ``model_name`` names the model in the knowledge base (it refuses to
    be opened later with another model); it defaults to the function's name.
    """

    embedding_dim: int
    func: Callable[..., Any]
    max_token_size: Optional[int] = None
    send_dimensions: bool = False
    model_name: Optional[str] = None

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.send_dimensions:
            kwargs.setdefault("embedding_dim", self.embedding_dim)
        out = self.func(*args, **kwargs)
        if hasattr(out, "__await__"):
            out = await out
        return out


def wrap_embedding_func_with_attrs(**kwargs: Any) -> Callable[[Callable[..., Any]], EmbeddingFunc]:
    """Decorator: ``@wrap_embedding_func_with_attrs(embedding_dim=…, max_token_size=…)`` turns a
    function into an ``EmbeddingFunc`` (its ``.func`` is the undecorated function)."""

    def wrap(func: Callable[..., Any]) -> EmbeddingFunc:
        return EmbeddingFunc(func=func, **kwargs)

    return wrap


def setup_logger(
    logger_name: str = "lightrag",
    level: str = "INFO",
    add_filter: bool = False,
    log_file_path: Optional[str] = None,
    enable_file_logging: bool = True,
) -> None:
    """Sends the named logger's records at ``level`` to stderr (and to ``log_file_path`` when
    given and ``enable_file_logging``), as LightRAG's ``setup_logger``; ``add_filter`` is
    accepted and has no effect (lightrag-rs logs no per-request noise through Python)."""
    del add_filter
    named = logging.getLogger(logger_name)
    named.setLevel(level.upper())
    named.handlers.clear()
    formatter = logging.Formatter("%(levelname)s: %(message)s")
    console = logging.StreamHandler()
    console.setFormatter(formatter)
    named.addHandler(console)
    if log_file_path and enable_file_logging:
        file_handler = logging.FileHandler(log_file_path, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
        named.addHandler(file_handler)
    named.propagate = False


__all__ = ["EmbeddingFunc", "wrap_embedding_func_with_attrs", "setup_logger", "logger"]
