"""lightrag_rs: LightRAG's Python API on the lightrag-rs engine.

Switch a LightRAG program by changing its import::

    from lightrag_rs import LightRAG, QueryParam
    from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed
    from lightrag_rs.utils import EmbeddingFunc
"""

from . import _native
from .base import DeletionResult, DocProcessingStatus, DocStatus, QueryParam
from .exceptions import (
    ConfigurationError,
    DocumentsFailedError,
    EmbeddingError,
    InvalidInputError,
    LightRAGRsError,
    LLMError,
    NotFoundError,
    PipelineCancelledError,
    StorageError,
)
from .lightrag import LightRAG

__version__: str = _native.__version__

__all__ = [
    "LightRAG",
    "QueryParam",
    "DocStatus",
    "DocProcessingStatus",
    "DeletionResult",
    "LightRAGRsError",
    "ConfigurationError",
    "InvalidInputError",
    "NotFoundError",
    "LLMError",
    "EmbeddingError",
    "StorageError",
    "PipelineCancelledError",
    "DocumentsFailedError",
    "__version__",
]
