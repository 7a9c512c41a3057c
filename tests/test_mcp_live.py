"""A long-lived `knowledge mcp` keeps its vault live with the watcher (issue 28 §1): each call
answers from what the watcher saw, and a file saved just before a call — created, rewritten,
renamed or deleted, with no pause before the call — is in that call's answer. The result's
`_meta.freshness` says the call was answered live (docs/mcp.md, "Freshness")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from tests.engine.api.test_visibility import agent_vault
from tests.test_mcp import TIMEOUT_S, answer, server
from tests.vaultkit import VaultKit, envelope, record_text

ROUNDS = 6


def person(root: Path, rel: str, record_id: str, title: str, body: str = "") -> None:
    """Write a person page in one write, as an editor saving it would (no vault call)."""
    text = record_text(envelope(record_id, "page", title, type="person"), body)
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def freshness(result: types.CallToolResult) -> Any:
    assert result.meta is not None, "the result carries no _meta"
    return result.meta["freshness"]


def test_a_file_saved_just_before_a_call_is_in_its_answer(kit: VaultKit) -> None:
    agent_vault(kit)
    kit.close()
    root = kit.root
    seen: dict[str, list[Any]] = {"created": [], "edited": [], "renamed": [], "deleted": [], "modes": []}

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S * 2):
            async with (
                stdio_client(server(root), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                await client.call_tool("knowledge_grep", {"query": "lantern"})  # the server is up
                for n in range(ROUNDS):
                    word = f"quokka{n}"
                    rel = f"private/people/new{n}.md"
                    person(root, rel, f"pg_new{n}", f"Newcomer {word}")
                    result = await client.call_tool("knowledge_grep", {"query": word})
                    seen["created"].append([h["id"] for h in answer(result)["hits"]])
                    seen["modes"].append(freshness(result))

                    person(root, rel, f"pg_new{n}", f"Newcomer {word}", body=f"Now also wombat{n}.\n")
                    result = await client.call_tool("knowledge_grep", {"query": f"wombat{n}"})
                    seen["edited"].append([h["id"] for h in answer(result)["hits"]])

                    moved = f"private/people/moved{n}.md"
                    os.replace(root / rel, root / moved)
                    result = await client.call_tool("knowledge_record", {"id": f"pg_new{n}"})
                    seen["renamed"].append(answer(result)["path"])
                    seen["modes"].append(freshness(result))

                    (root / moved).unlink()
                    result = await client.call_tool("knowledge_lookup", {"query": f"pg_new{n}"})
                    seen["deleted"].append(answer(result)["status"])
                    seen["modes"].append(freshness(result))

    anyio.run(session)
    assert seen["created"] == [[f"pg_new{n}"] for n in range(ROUNDS)]
    assert seen["edited"] == [[f"pg_new{n}"] for n in range(ROUNDS)]
    assert seen["renamed"] == [f"private/people/moved{n}.md" for n in range(ROUNDS)]
    assert seen["deleted"] == ["missing"] * ROUNDS
    assert seen["modes"] == [{"mode": "live"}] * (3 * ROUNDS)
    assert not [p for p in (root / ".knowledge").iterdir() if p.name.startswith("live-sync-")]
