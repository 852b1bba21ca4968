"""LightRAG's ``lightrag.base`` types that users touch: ``QueryParam``, ``DocStatus``,
``DocProcessingStatus`` and ``DeletionResult``."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, Optional


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


QueryMode = Literal["local", "global", "hybrid", "naive", "mix", "bypass", "auto", "ppr"]


@dataclass
class QueryParam:
    """How a query retrieves and answers: LightRAG's ``QueryParam`` with its defaults.

    Ours, beside LightRAG's fields: ``mode="auto"`` (reads the question and picks a mode) and
    ``mode="ppr"`` (personalized PageRank over entities and passages); ``filter`` (only some
    documents: ``{"doc_ids": [...], "file_paths": ["*.md"], "metadata": {...},
    "created_after": "2026-01-01", …}``, see docs/api-extensions.md); ``ids`` (LightRAG's
    documented document-id filter, the same as ``filter["doc_ids"]``); ``chunk_fusion``
    (``round_robin`` or ``rrf``).
    """

    mode: QueryMode = "mix"
    only_need_context: bool = False
    only_need_prompt: bool = False
    response_type: str = "Multiple Paragraphs"
    stream: bool = False
    top_k: int = field(default_factory=lambda: _env_int("TOP_K", 40))
    chunk_top_k: int = field(default_factory=lambda: _env_int("CHUNK_TOP_K", 20))
    max_entity_tokens: int = field(default_factory=lambda: _env_int("MAX_ENTITY_TOKENS", 6000))
    max_relation_tokens: int = field(default_factory=lambda: _env_int("MAX_RELATION_TOKENS", 8000))
    max_total_tokens: int = field(default_factory=lambda: _env_int("MAX_TOTAL_TOKENS", 30000))
    hl_keywords: list[str] = field(default_factory=list)
    ll_keywords: list[str] = field(default_factory=list)
    conversation_history: list[dict[str, str]] = field(default_factory=list)
    user_prompt: Optional[str] = None
    enable_rerank: bool = field(default_factory=lambda: _env_bool("RERANK_BY_DEFAULT", True))
    include_references: bool = False
    filter: Optional[dict[str, Any]] = None
    ids: Optional[list[str]] = None
    chunk_fusion: Optional[str] = None


class DocStatus(str, Enum):
    """A document's state in the pipeline."""

    PENDING = "pending"
    PROCESSING = "processing"
    PREPROCESSED = "preprocessed"
    PROCESSED = "processed"
    FAILED = "failed"


@dataclass
class DocProcessingStatus:
    """A document's status record, as LightRAG's ``aget_docs_by_ids`` returns it."""

    content_summary: str
    content_length: int
    file_path: str
    status: DocStatus
    created_at: str
    updated_at: str
    track_id: Optional[str] = None
    chunks_count: Optional[int] = None
    chunks_list: Optional[list[str]] = field(default_factory=list)
    error_msg: Optional[str] = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "DocProcessingStatus":
        """From the record the engine returns (LightRAG's wire form)."""
        return cls(
            content_summary=str(data.get("content_summary", "")),
            content_length=int(data.get("content_length", 0)),
            file_path=str(data.get("file_path", "")),
            status=DocStatus(str(data.get("status", "pending"))),
            created_at=str(data.get("created_at", "")),
            updated_at=str(data.get("updated_at", "")),
            track_id=data.get("track_id"),
            chunks_count=data.get("chunks_count"),
            chunks_list=list(data.get("chunks_list") or []),
            error_msg=data.get("error_msg"),
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass
class DeletionResult:
    """The outcome of a deletion, as LightRAG's ``adelete_by_*`` return it."""

    status: Literal["success", "not_found", "not_allowed", "fail"]
    doc_id: str
    message: str
    status_code: int = 200
    file_path: Optional[str] = None


__all__ = ["QueryParam", "QueryMode", "DocStatus", "DocProcessingStatus", "DeletionResult"]
