"""LightRAG's ``lightrag.kg.shared_storage``, kept for scripts that call it.

lightrag-rs keeps the pipeline status in the store itself (one per knowledge base), so there is
nothing to initialise: these functions do nothing.
"""

from typing import Any, Optional


async def initialize_pipeline_status(workspace: Optional[str] = None) -> None:
    """Does nothing (kept for LightRAG scripts); the store holds the pipeline status."""
    del workspace


def initialize_share_data(workers: int = 1) -> None:
    """Does nothing (kept for LightRAG scripts)."""
    del workers


async def get_namespace_data(namespace: str, workspace: Optional[str] = None) -> dict[str, Any]:
    """An empty dict (kept for LightRAG scripts)."""
    del namespace, workspace
    return {}


__all__ = ["initialize_pipeline_status", "initialize_share_data", "get_namespace_data"]
