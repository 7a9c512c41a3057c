"""The stdin side of `knowledge mcp`: every line is screened before the MCP SDK parses it, so
that each request, however malformed, gets a JSON-RPC answer (issue 32 §5).

The SDK's stdio transport parses a line with pydantic and, when that fails, hands the
exception to the session, which logs it and answers nothing: a client that sent a request
with an id waits forever. Python's `json` and pydantic also give up on deep nesting (a
`RecursionError` at about a thousand levels, pydantic's own limit far sooner). So each line
is measured first, without recursion, and one that breaks a rule is answered here with a
JSON-RPC error carrying its id when the id can be read:

- longer than `MAX_LINE_CHARS` (read in bounded pieces, never whole): -32600;
- brackets nested deeper than `MAX_WIRE_DEPTH`: -32600 (the id is read from a copy of the
  line whose too-deep parts are cut out, so it parses within the limit);
- not JSON: -32700, id null (JSON-RPC: the id cannot be known);
- JSON that is not a JSON-RPC message: -32600.

What passes goes to the SDK unchanged. The limits are in docs/limits.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

from knowledge_desktop.api.tool import MAX_ARGUMENTS_CHARS

MAX_LINE_CHARS = 2 * MAX_ARGUMENTS_CHARS + 100_000
"""One message on the wire: a call's largest arguments, each character escaped, and room."""
MAX_WIRE_DEPTH = 64
"""Brackets in one message; a tool's arguments may nest 32 levels below its `params`."""
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Refusal:
    """The error a refused line is answered with."""

    id: Any
    code: int
    message: str

    def answer(self) -> SessionMessage:
        # JSON-RPC answers with a null id when the request's id cannot be read (the SDK's type
        # wants one: an empty string never names a request a client could be waiting on).
        error = types.JSONRPCError(
            jsonrpc="2.0", id=self.id, error=types.ErrorData(code=self.code, message=self.message)
        )
        return SessionMessage(error)


def _pruned(line: str, limit: int) -> tuple[str, int]:
    """`line` with every bracket deeper than `limit` cut out (replaced by `null`), and its
    greatest depth (counted up to one past `limit`). Strings are skipped whole by the token
    pattern, so brackets inside them do not count."""
    out: list[str] = []
    depth, deepest, kept_to, cut_at = 0, 0, 0, -1
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if depth == limit + 1:
                out.append(line[kept_to : match.start()])
                cut_at = match.start()
        elif token in "]}":
            if depth == limit + 1 and cut_at >= 0:
                out.append("null")
                kept_to, cut_at = match.end(), -1
            depth -= 1
    out.append(line[kept_to:] if cut_at < 0 else "")
    return "".join(out), deepest


def _id_of(data: Any) -> Any:
    """The request id in parsed `data`, when it is one JSON-RPC allows (string or integer)."""
    if isinstance(data, dict):
        found = data.get("id")
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


def screen(line: str) -> Refusal | None:
    """Why `line` is not handed to the SDK, or None when it may be."""
    if len(line) > MAX_LINE_CHARS:
        return Refusal(None, INVALID_REQUEST, f"a message is at most {MAX_LINE_CHARS:,} characters")
    pruned, deepest = _pruned(line, MAX_WIRE_DEPTH)
    if deepest > MAX_WIRE_DEPTH:
        try:
            ident = _id_of(json.loads(pruned))
        except ValueError:
            ident = None
        return Refusal(
            ident,
            INVALID_REQUEST,
            f"a message nests more than {MAX_WIRE_DEPTH} levels; the limit is {MAX_WIRE_DEPTH}",
        )
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)  # as the SDK will
    except ValueError:
        try:
            data = json.loads(line)
        except ValueError as exc:
            return Refusal(None, PARSE_ERROR, f"not JSON: {exc}")
        return Refusal(_id_of(data), INVALID_REQUEST, "not a JSON-RPC 2.0 request, notification or response")
    return None


async def _lines(source: BinaryIO) -> AsyncIterator[tuple[str, bool]]:
    """Each line of `source` as text, and whether it fit in `MAX_LINE_CHARS`: a longer line is
    read in bounded pieces and dropped (an empty text), so memory stays bounded."""
    limit = MAX_LINE_CHARS * 4 + 1  # bytes: a character is at most four in UTF-8

    async def readline() -> bytes:
        # a worker thread per read, given up on at cancellation (stdin may never close)
        return await anyio.to_thread.run_sync(source.readline, limit, abandon_on_cancel=True)

    while True:
        raw = await readline()
        if not raw:
            return
        if raw.endswith(b"\n") or len(raw) < limit:
            text = raw.decode("utf-8", errors="replace")
            yield text, len(text.rstrip("\n")) <= MAX_LINE_CHARS
            continue
        while raw and not raw.endswith(b"\n"):
            raw = await readline()
        yield "", False


class ScreenedStdin:
    """What `stdio_server(stdin=…)` reads: the lines of `source` that pass `screen`; each
    other one is answered through `refusals` (a sender the server's writer drains)."""

    def __init__(self, source: BinaryIO, refusals: MemoryObjectSendStream[SessionMessage]) -> None:
        self._source = source
        self._refusals = refusals

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self._refusals:
            async for line, whole in _lines(self._source):
                if whole and not line.strip():
                    continue
                refusal = (
                    Refusal(None, INVALID_REQUEST, f"a message is at most {MAX_LINE_CHARS:,} characters")
                    if not whole
                    else screen(line)
                )
                if refusal is None:
                    yield line
                else:
                    await self._refusals.send(refusal.answer())


def refusal_channel() -> tuple[
    MemoryObjectSendStream[SessionMessage], MemoryObjectReceiveStream[SessionMessage]
]:
    """The stream refused lines are answered through (buffered: the reader never waits on it)."""
    return anyio.create_memory_object_stream[SessionMessage](max_buffer_size=1000)
