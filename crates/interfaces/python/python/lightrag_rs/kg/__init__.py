"""LightRAG's ``lightrag.kg`` package: only ``shared_storage`` is kept, for scripts that import it."""
