"""What an extension can infer, and what it can change, through what it reads (issue 32 §1,
§3, §7), over the real `knowledge mcp` stdio server as `tests/test_mcp.py` starts it.

The vault is the demo vault, plus two companies sharing a title. The extension `squatter`
may create collections and read people — not companies, not projects. It writes documents
whose titles and links probe the person's records; docs/mcp.md, "What the agent can read",
says what it may learn, and docs/decisions.md, "Names in collections rank last", why its
documents cannot take the person's names."""

from __future__ import annotations

import os
import shutil
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from knowledge_desktop.engine.api.collections import BUILTINS, CREATED_ROOT
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.links.precedence import COLLECTION_ROOTS
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.resources import demo_vault_path
from tests.test_mcp import TIMEOUT_S, answer, server
from tests.vaultkit import VaultKit

NAME = "squatter"
PERMISSIONS = ("collections.create", "entities.read:person")
RUTH = "private/people/ruth-abernathy.md"
KICKOFF = "private/meetings/2026-06-03-wayfinder-kickoff.md"
PROBES = "[[Northwind Credit Union]] [[Nonexistent Thing]] [[Twin Harbor]] [[Northwind]]\n"
"""A hidden company, nothing, two hidden companies sharing a title, and a hidden company's
absorbed duplicate (merged into the first)."""

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def demo_vault(kit: VaultKit, *grants: str) -> Vault:
    """The demo vault with `squatter` installed in `private` and `grants` turned on."""
    shutil.copytree(
        demo_vault_path(), kit.root, ignore=shutil.ignore_patterns(".knowledge"), dirs_exist_ok=True
    )
    kit.page("private/companies/twin-a.md", "pg_twin_a", "Twin Harbor", type="company")
    kit.page("private/companies/twin-b.md", "pg_twin_b", "Twin Harbor", type="company")
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    manifest = {
        "name": NAME,
        "description": "Probes",
        "knowledge": {"permissions": list(PERMISSIONS), "reason": "r"},
    }
    extensions.install(validate_manifest(manifest), "private")
    for permission in grants:
        extensions.grant(NAME, permission)
    return vault


def as_extension(kit: VaultKit, script: Callable[[Call], Awaitable[None]]) -> None:
    """Run `script` with a `call(tool, arguments) -> JSON answer` of a live MCP session."""

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root, NAME), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()

                async def call(name: str, args: dict[str, Any]) -> Any:
                    return answer(await client.call_tool(name, args))

                await script(call)

    anyio.run(session)


def statuses(view: dict[str, Any]) -> dict[str, tuple[str, str | None, str | None]]:
    return {r["target"]: (r["status"], r["id"], r["path"]) for r in view["references"]}


NOTHING = ("missing", None, None)


def test_a_hidden_record_reads_exactly_as_no_record(kit: VaultKit) -> None:
    """§1: in its own document and on a person's page it may read, a link to a record it may
    not see, to two such records sharing a title, or to a merged one reads as a link to
    nothing; a namesake it may not see neither wins nor makes its own document ambiguous."""
    demo_vault(kit, *PERMISSIONS)
    seen: dict[str, Any] = {}

    async def script(call: Call) -> None:
        col = await call("knowledge_collections_create", {"name": "Probes"})
        body = PROBES + "[[Ruth Abernathy]] [[Verdant Survey Co.]] [[Probe]]\n"
        await call("knowledge_documents_upsert", {"collection": col["ref"], "title": "Probe", "body": body})
        seen["doc"] = await call("knowledge_record", {"id": "private/collections/probes/probe.md"})
        seen["ruth"] = await call("knowledge_record", {"id": RUTH})
        seen["lookups"] = [
            await call("knowledge_lookup", {"query": q})
            for q in ("Northwind Credit Union", "Nonexistent Thing")
        ]

    as_extension(kit, script)
    doc, ruth = statuses(seen["doc"]), statuses(seen["ruth"])
    for hidden in (
        "Northwind Credit Union",
        "Nonexistent Thing",
        "Twin Harbor",
        "Northwind",
        "Verdant Survey Co.",
    ):
        assert doc[hidden] == NOTHING, hidden
    ruth_id = seen["ruth"]["id"]
    assert doc["Ruth Abernathy"] == ("resolved", ruth_id, RUTH)
    assert doc["Probe"] == ("resolved", seen["doc"]["id"], "private/collections/probes/probe.md")
    assert ruth["Verdant Survey Co."] == NOTHING  # the person's own page: a company it may not see
    assert ruth["Wayfinder"] == NOTHING  # a project
    assert [(lk["status"], set(lk) - {"query"}) for lk in seen["lookups"]] == [("missing", {"status"})] * 2
    assert {b["path"] for b in seen["ruth"]["backlinks"]} >= {"private/collections/probes/probe.md"}


def test_an_extension_document_cannot_take_the_persons_names(kit: VaultKit) -> None:
    """§3 both ways: a document titled "Ruth Abernathy" leaves the person's `[[Ruth
    Abernathy]]` and `knowledge lookup` on the person, while a name only documents carry
    still resolves — from inside the collection and for the person's lookup."""
    vault = demo_vault(kit, "collections.create")
    seen: dict[str, Any] = {}

    async def script(call: Call) -> None:
        col = await call("knowledge_collections_create", {"name": "Squat"})
        await call(
            "knowledge_documents_upsert", {"collection": col["ref"], "title": "Ruth Abernathy", "body": "x\n"}
        )
        await call(
            "knowledge_documents_upsert", {"collection": col["ref"], "title": "Stew", "body": "Braise.\n"}
        )
        body = "[[Stew]] [[Ruth Abernathy]]\n"
        await call("knowledge_documents_upsert", {"collection": col["ref"], "title": "Menu", "body": body})
        seen["menu"] = await call("knowledge_record", {"id": "private/collections/squat/menu.md"})
        seen["lookup"] = await call("knowledge_lookup", {"query": "Ruth Abernathy"})
        Extensions(vault.store, vault.root).grant(NAME, "entities.read:person")
        seen["lookup-person"] = await call("knowledge_lookup", {"query": "Ruth Abernathy"})

    as_extension(kit, script)
    vault = kit.scan()
    person = vault.lookup("Ruth Abernathy")
    assert (person["status"], person["record"]["path"]) == ("found", RUTH)
    kickoff = [r for r in vault.show(KICKOFF)["references"] if r["target"] == "Ruth Abernathy"]
    assert [(r["status"], r["path"]) for r in kickoff] == [("resolved", RUTH)]
    squat = "private/collections/squat/ruth-abernathy.md"
    assert "link-ambiguous" not in {d["code"] for d in vault.show(KICKOFF)["diagnostics"]}
    menu = {
        r["target"]: (r["status"], r["path"])
        for r in vault.show("private/collections/squat/menu.md")["references"]
    }
    assert menu == {
        "Stew": ("resolved", "private/collections/squat/stew.md"),
        "Ruth Abernathy": ("resolved", RUTH),
    }
    assert vault.lookup("Stew")["record"]["path"] == "private/collections/squat/stew.md"
    assert vault.lookup(vault.find(squat)[0]["id"])["record"]["path"] == squat  # an id still reaches it
    # The extension: its own document while the person is hidden from it, the person once not.
    assert statuses(seen["menu"])["Stew"][2] == "private/collections/squat/stew.md"
    assert statuses(seen["menu"])["Ruth Abernathy"][2] == squat
    assert (seen["lookup"]["status"], seen["lookup"]["record"]["path"]) == ("found", squat)
    assert (seen["lookup-person"]["status"], seen["lookup-person"]["record"]["path"]) == ("found", RUTH)


def test_documents_in_collection_folders_are_not_misfiled(kit: VaultKit) -> None:
    """§7: a document the API files in its collection folder draws no `misfiled` warning; a
    note the person files outside `notes/`, elsewhere than in a collection, still does."""
    demo_vault(kit, "collections.create")
    kit.page("private/stray/loose.md", "pg_loose", "Loose note", type="note")

    async def script(call: Call) -> None:
        col = await call("knowledge_collections_create", {"name": "Filed"})
        await call("knowledge_documents_upsert", {"collection": col["ref"], "title": "Kept", "body": "x\n"})

    as_extension(kit, script)
    assert "misfiled" not in kit.codes("private/collections/filed/kept.md")
    assert "misfiled" in kit.codes("private/stray/loose.md")


def test_the_collection_roots_are_the_apis_folders() -> None:
    """The name precedence and the filing rule know the folders the API files documents in."""
    assert set(COLLECTION_ROOTS) == {*BUILTINS, CREATED_ROOT}


def test_search_never_answers_with_notes(kit: VaultKit) -> None:
    """Issue 27 with notes: the person's search embeds notes, but the API's `search` reads
    records under grants only, so a note beside a readable document, or at the root, never
    comes back, even with its vectors stored and its words matching best."""
    vault = demo_vault(kit, "collections.create")
    seen: dict[str, Any] = {}

    async def create(call: Call) -> None:
        col = await call("knowledge_collections_create", {"name": "Bakes"})
        body = "Sourdough starter fed twice a day.\n"
        await call("knowledge_documents_upsert", {"collection": col["ref"], "title": "Starter", "body": body})

    async def search(call: Call) -> None:
        seen["search"] = await call("knowledge_search", {"query": "sourdough starter", "limit": 50})

    as_extension(kit, create)
    kit.write("private/collections/bakes/loose-note.md", "Sourdough starter notes: rye and flour.\n")
    kit.write("Sourdough.md", "Sourdough starter: my sourdough starter recipe.\n")
    vault = kit.scan()
    both = vault.search(GrepQuery("sourdough starter", limit=50), "hybrid", notes=True)
    notes = {r["path"] for r in both["results"] if r["kind"] == "note"}
    assert notes >= {"private/collections/bakes/loose-note.md", "Sourdough.md"}
    as_extension(kit, search)
    titles = [h["title"] for h in seen["search"]["hits"]]
    assert titles == ["Starter"]
