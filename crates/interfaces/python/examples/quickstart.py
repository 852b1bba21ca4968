"""LightRAG's quick start, in our words, with only the import lines changed.

Needs OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server); indexes one
text and asks about it in every classic mode.
"""

import asyncio
import os

from lightrag_rs import LightRAG, QueryParam
from lightrag_rs.kg.shared_storage import initialize_pipeline_status
from lightrag_rs.llm.openai import gpt_4o_mini_complete, openai_embed
from lightrag_rs.utils import setup_logger

setup_logger("lightrag", level="INFO")

WORKING_DIR = os.environ.get("EXAMPLE_WORKING_DIR", "./rag_storage")
os.makedirs(WORKING_DIR, exist_ok=True)

STORY = (
    "Ebenezer Scrooge runs a counting-house in London with his clerk Bob Cratchit. "
    "On Christmas Eve the ghost of his late partner Jacob Marley visits Scrooge and warns him. "
    "Three spirits then show Scrooge his past, the Cratchit family's present, and his lonely future. "
    "Scrooge wakes on Christmas morning a changed man and helps Tiny Tim, Bob Cratchit's son."
)


async def initialize_rag() -> LightRAG:
    rag = LightRAG(
        working_dir=WORKING_DIR,
        embedding_func=openai_embed,
        llm_model_func=gpt_4o_mini_complete,
    )
    await rag.initialize_storages()
    await initialize_pipeline_status()
    return rag


async def main() -> None:
    rag = await initialize_rag()
    try:
        await rag.ainsert(STORY)
        for mode in ("naive", "local", "global", "hybrid", "mix"):
            answer = await rag.aquery("What happens to Scrooge on Christmas Eve?", param=QueryParam(mode=mode))
            print(f"--- {mode} ---")
            print(answer)
    finally:
        await rag.finalize_storages()


if __name__ == "__main__":
    asyncio.run(main())
