"""`knowledge mcp` end to end (issue 16 §3 and §5): the MCP SDK's own client starts the
server over stdio, lists its tools and calls them as an agent would. The agent is the
extension `agent` of `tests/engine/api/test_visibility.py`: it reads people and the user's
food preferences, and nothing else of its partition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from knowledge_desktop.api.tools import TOOLS
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import load_manifest
from knowledge_desktop.engine.vault_self import set_self
from tests.engine.api.test_visibility import agent_vault
from tests.vaultkit import VaultKit

REPO = Path(__file__).resolve().parents[1]
RECIPES = REPO / "examples" / "recipe-gem" / "manifest.json"
TIMEOUT_S = 30


def server(root: Path, name: str = "agent") -> StdioServerParameters:
    env = {"PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = ["-m", "knowledge_desktop.cli", "mcp", str(root), "--extension", name]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))


def answer(result: types.CallToolResult) -> Any:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def test_an_agent_sees_only_what_was_granted_and_is_told_why_not(kit: VaultKit) -> None:
    vault = agent_vault(kit)
    extensions = Extensions(vault.store, vault.root)
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}
                seen["grep"] = answer(await client.call_tool("knowledge_grep", {"query": "lantern"}))
                seen["hidden"] = error_text(await client.call_tool("knowledge_record", {"id": "pg_acme"}))
                seen["bad"] = error_text(
                    await client.call_tool("knowledge_grep", {"query": "lantern", "limit": 99})
                )
                seen["unknown"] = error_text(await client.call_tool("knowledge_facts_forget", {}))
                extensions.grant("agent", "entities.read:org")  # the person turns a switch on
                seen["record"] = answer(await client.call_tool("knowledge_record", {"id": "pg_acme"}))

    anyio.run(session)
    assert set(seen["tools"]) == {t.name for t in TOOLS}
    assert {"knowledge_grep", "knowledge_facts_put", "knowledge_changes_revert"} <= set(seen["tools"])
    assert seen["tools"]["knowledge_timeline"].input_schema["properties"]["timeField"]["type"] == "string"
    assert {h["id"] for h in seen["grep"]["hits"]} == {"pg_ada", "pg_me", "cl_soup"}
    assert seen["grep"]["total"] == 3
    assert seen["hidden"] == "no record or file 'pg_acme' in this vault"
    assert "limit must be between 1 and 50" in seen["bad"]
    assert "no tool named 'knowledge_facts_forget'" in seen["unknown"]
    assert seen["record"]["title"] == "Acme Lantern"


def test_an_agent_writes_what_it_was_granted_and_reverts_its_run(kit: VaultKit) -> None:
    """The recipe gem's manifest as an agent: a put is refused until the person turns on
    `facts.write`, then facts and a keyed document are written, listed and reverted as a run."""
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(load_manifest(RECIPES), "private")
    extensions.grant("recipes", "facts.read:self:pref.food.*")
    extensions.grant("recipes", "collections.create")
    put = {"predicateHint": "pref.food.rated", "value": "tomato beef stew", "sourceRef": "record/1"}
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root, "recipes"), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()

                async def call(name: str, args: dict[str, Any]) -> Any:
                    return answer(await client.call_tool(name, args))

                seen["refused"] = error_text(await client.call_tool("knowledge_facts_put", put))
                extensions.grant("recipes", "facts.write:self:pref.food.*")  # the person says yes
                seen["put"] = await call("knowledge_facts_put", put)
                seen["lookup"] = await call("knowledge_facts_lookup", {"prefix": "pref.food"})
                col = await call("knowledge_collections_create", {"name": "Recipes"})
                doc = {"collection": col["ref"], "key": "1", "title": "Stew", "body": "Braise it.\n"}
                seen["created"] = await call("knowledge_documents_upsert", doc)
                seen["unchanged"] = await call("knowledge_documents_upsert", doc)
                seen["changes"] = await call("knowledge_changes_list", {})
                run = seen["changes"][0]["runId"]
                seen["revert"] = await call("knowledge_changes_revert", {"runId": run})
                seen["after"] = await call("knowledge_facts_lookup", {"prefix": "pref.food"})

    anyio.run(session)
    assert "extension recipes lacks knowledge permission facts.write:self:pref.food.rated" in seen["refused"]
    assert (seen["put"]["status"], seen["put"]["predicate"]) == ("applied", "pref.food.rated")
    assert [(f["ref"], f["value"]) for f in seen["lookup"]] == [(seen["put"]["ref"], "tomato beef stew")]
    assert (seen["created"]["status"], seen["unchanged"]["status"]) == ("created", "unchanged")
    assert seen["unchanged"]["ref"] == seen["created"]["ref"]
    assert [c["op"] for c in seen["changes"]] == ["document-create", "collection-create", "fact-put"]
    assert {(c["actor"], c["status"]) for c in seen["changes"]} == {("extension:recipes", "applied")}
    assert len({c["runId"] for c in seen["changes"]}) == 1
    undone = {i["op"]: i["status"] for i in seen["revert"]["items"]}
    assert set(undone) == {"document-create", "collection-create", "fact-put"}  # the whole run
    assert undone["fact-put"] == "reverted"
    assert seen["after"] == []


def test_an_extension_that_is_not_installed_is_a_clear_error_exit(kit: VaultKit) -> None:
    agent_vault(kit)
    kit.close()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", "mcp", str(kit.root), "--extension", "nobody"],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert "no extension named 'nobody' is installed" in done.stderr
    assert done.stdout == ""


def test_an_agent_without_a_self_page_is_told_the_command_then_is_answered(kit: VaultKit) -> None:
    """A fresh vault has no page marked as you: the agent's error names `knowledge self`; once
    the person runs it (here: its engine call), the same call is answered."""
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    extensions.install(load_manifest(RECIPES), "private")
    extensions.grant("recipes", "facts.read:self:pref.food.*")
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root, "recipes"), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                lookup = {"prefix": "pref.food"}
                seen["refused"] = error_text(await client.call_tool("knowledge_facts_lookup", lookup))
                set_self(vault, None, "pg_ada")  # `knowledge self VAULT --set pg_ada`
                seen["after"] = answer(await client.call_tool("knowledge_facts_lookup", lookup))

    anyio.run(session)
    assert f"run `knowledge self {kit.root} --create NAME`" in seen["refused"]
    assert seen["after"] == []
