"""Exceptions raised by lightrag_rs.

Every error of the engine is a ``LightRAGRsError`` whose message is the one the ``lightrag``
CLI prints for the same failure. Errors about arguments and graph edits are also
``ValueError``\\ s, as LightRAG raises them.
"""


class LightRAGRsError(Exception):
    """Base class of every lightrag_rs error."""


class ConfigurationError(LightRAGRsError, ValueError):
    """A constructor argument or setting cannot be used (the message names it)."""


class InvalidInputError(LightRAGRsError, ValueError):
    """An argument was refused: an empty query, an empty description, an edit that is not allowed."""


class NotFoundError(LightRAGRsError, ValueError):
    """No such document, entity or relation."""


class LLMError(LightRAGRsError):
    """The chat model failed (after the retries of the gateway)."""


class EmbeddingError(LightRAGRsError):
    """The embedding model failed (after the retries of the gateway)."""


class StorageError(LightRAGRsError):
    """The store failed: a full disk, a locked or damaged file, a lost database connection."""


class PipelineCancelledError(LightRAGRsError):
    """Indexing was cancelled; inserting again (or ``process``) resumes it."""


class DocumentsFailedError(LightRAGRsError):
    """Documents were stored but could not be indexed; the message lists them and why."""


__all__ = [
    "LightRAGRsError",
    "ConfigurationError",
    "InvalidInputError",
    "NotFoundError",
    "LLMError",
    "EmbeddingError",
    "StorageError",
    "PipelineCancelledError",
    "DocumentsFailedError",
]
