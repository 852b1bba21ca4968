"""asyncio helpers the native module schedules on the caller's loop."""

from typing import Any, AsyncIterator


async def next_piece(pieces: AsyncIterator[Any]) -> Any:
    """The next item of an async iterator, fetched on the loop that runs this coroutine (its
    ``__anext__`` may need a running loop); raises ``StopAsyncIteration`` at the end."""
    return await pieces.__anext__()
