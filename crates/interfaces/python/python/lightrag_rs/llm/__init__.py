"""LightRAG's ``lightrag.llm``: the model functions of ``openai`` and ``ollama``."""
