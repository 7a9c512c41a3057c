"""`knowledge mcp VAULT --extension NAME`: the knowledge API as an MCP server over stdio
(issue 16 §3), built on the official MCP Python SDK's low-level `Server`.

An AI agent is an extension like any other: a person installs it and turns on
its permissions (`knowledge extensions …`), and the agent's MCP client starts
this server for it. The server lists `api.tools.TOOLS` — the read tools
`knowledge_grep`, `knowledge_lookup`, `knowledge_record`, `knowledge_timeline`,
`knowledge_chronicle_day`, and every method of the knowledge API
(`knowledge_facts_put`, `knowledge_documents_upsert`, `knowledge_changes_revert`,
…) — and runs each call through the same `Extension` the Python facade gives, under
that extension's grants as they stand at the call. A refused or invalid call
is a tool result with `isError` whose text is the engine's message (`extension
… lacks knowledge permission …`), so the agent can read it and adjust.

The low-level server is used rather than `MCPServer`'s decorators because the
tools are a table with the spec's argument names and schemas, not Python
signatures.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from knowledge_desktop.api.extension import Extension, open_extension
from knowledge_desktop.api.tools import BY_NAME, TOOLS
from knowledge_desktop.engine.errors import KnownError
from knowledge_desktop.mcp_wire import ScreenedStdin, refusal_channel

SERVER_NAME = "knowledge"
FRESHNESS_KEY = "freshness"


def _text_result(
    payload: Any, *, error: bool = False, meta: dict[str, Any] | None = None
) -> types.CallToolResult:
    if error:
        content = [types.TextContent(type="text", text=str(payload))]
        return types.CallToolResult(content=content, is_error=True, meta=meta)
    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=payload if isinstance(payload, dict) else None,
        meta=meta,
    )


def _meta(ext: Extension) -> dict[str, Any] | None:
    """The result's `_meta`: how the call was brought up to date with the vault's files
    (`freshness`, docs/mcp.md), when it read the vault at all."""
    return None if ext.freshness is None else {FRESHNESS_KEY: ext.freshness.as_json()}


def call(ext: Extension, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call as its MCP result: the tool's JSON answer, or an error result carrying
    the engine's message (an unknown tool is told so the same way)."""
    tool = BY_NAME.get(name)
    if tool is None:
        return _text_result(f"no tool named {name!r}", error=True)
    ext.freshness = None
    try:
        # damage met in state.sqlite is repaired and the call answered, as a CLI command is
        payload = ext.vault.repairing(lambda: tool.call(ext, arguments))
        return _text_result(payload, meta=_meta(ext))
    except KnownError as exc:
        return _text_result(str(exc), error=True, meta=_meta(ext))
    except Exception as exc:  # a bug answers this call as an error; the server goes on serving
        return _text_result(f"internal error in {name}: {exc!r}", error=True, meta=_meta(ext))


def build_server(ext: Extension) -> Server[Any]:
    """The MCP server of extension `ext` (its vault stays open while the server runs)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema())
                for t in TOOLS
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return call(ext, params.name, params.arguments)

    return Server(
        SERVER_NAME,
        instructions=(
            f"The knowledge vault as extension {ext.name!r} (partition {ext.scope!r}): facts about"
            " the user and the people they know, documents in collections, and the vault's records."
            " Only what the person granted is visible or writable; a refused call says which"
            " permission it lacks. Writes of this session share one run, which changes.revert undoes."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(vault_path: str | os.PathLike[str], name: str, run_id: str | None = None) -> None:
    """Open the vault as extension `name` and serve MCP on stdin/stdout until the client
    closes them. `UnknownExtension` before anything is served when `name` is not installed.
    The vault is kept live by the watcher while the server runs (`engine/live_vault.py`):
    each call reconciles what changed since the last, not the whole folder."""
    with open_extension(vault_path, name, run_id, live=True) as ext:
        server = build_server(ext)
        # What starting made (modules, the SDK's pydantic models, the vault's caches) lives
        # as long as the server: out of the collector's sight, no full collection walks it
        # again. One did, during the first call (0.25 s of a 10k vault's first grep under
        # load; bench/RESULTS.md), and again now and then between later calls.
        gc.freeze()

        async def run() -> None:
            refusals, answers = refusal_channel()
            stdin = ScreenedStdin(sys.stdin.buffer, refusals)
            async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]

                async def answer_refused() -> None:
                    async with answers:
                        async for message in answers:
                            await write_stream.send(message)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(answer_refused)
                    await server.run(read_stream, write_stream, server.create_initialization_options())
                    tg.cancel_scope.cancel()

        anyio.run(run)
