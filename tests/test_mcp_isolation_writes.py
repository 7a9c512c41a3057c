"""What one extension writes through `knowledge mcp` stays its own and stays data (issue 32
§2, §4, §5, §6; issue 24 §7), over the real stdio server.

Each test fails on the code before it: a fact's value was written raw into its claim's body
(the meeting gained a backlink, `<b>` came out as markup); a foreign `runId` was taken, so
reverting one extension's run undid the other's write; an extension with no grant was told
about the vault (`partition 'private' has no self page`, `a diary entry's key is its date`)
before its permission; a 150-deep value was an `internal error`, and deep or malformed
JSON-RPC lines went unanswered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from knowledge_desktop.engine.api.changes import list_changes, revert
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import load_manifest, validate_manifest
from knowledge_desktop.engine.vault_api import person_changes
from knowledge_desktop.ui.render.markdown import render_markdown
from tests.test_mcp import RECIPES, REPO, TIMEOUT_S, answer, error_text, server
from tests.vaultkit import VaultKit

TYPED = (
    "tea [[Q4 planning 2026]] <b>x</b> ![img](http://example.org/x.png)\n---\n<script>alert(1)</script> &amp;"
)


def _install(kit: VaultKit, *grants: str, name: str = "recipes") -> Extensions:
    vault = kit.scan()
    extensions = Extensions(vault.store, vault.root)
    if name == "recipes":
        extensions.install(load_manifest(RECIPES), "private")
    else:
        data = json.loads(RECIPES.read_text())
        data["name"] = name
        extensions.install(validate_manifest(data), "private")
    for g in grants:
        extensions.grant(name, g)
    return extensions


def _calls(kit: VaultKit, name: str, steps: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each (tool, arguments) called in order in one session: its JSON answer, or its error text."""
    out: list[Any] = []

    async def session() -> None:
        with open(os.devnull, "w") as errlog, anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_client(server(kit.root, name), errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                for tool, args in steps:
                    try:
                        result = await client.call_tool(tool, args)
                    except MCPError as exc:  # answered by a JSON-RPC error, not a tool result
                        out.append(f"JSON-RPC error {exc.error.code}: {exc.error.message}")
                        continue
                    out.append(error_text(result) if result.is_error else answer(result))

    anyio.run(session)
    return out


FOOD = "facts.write:self:pref.food.*"


def test_a_value_is_written_as_text_no_link_no_markup(kit: VaultKit) -> None:
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    kit.page("private/meetings/q4.md", "pg_q4", "Q4 planning 2026", type="meeting")
    _install(kit, FOOD, "facts.read:self:pref.food.*")
    put, found = _calls(
        kit,
        "recipes",
        [
            ("knowledge_facts_put", {"predicateHint": "pref.food.rated", "value": TYPED}),
            ("knowledge_facts_lookup", {"prefix": "pref.food"}),
        ],
    )
    assert put["status"] == "applied"
    assert [f["value"] for f in found] == [TYPED]  # the value round-trips exactly
    vault = kit.scan()
    assert vault.backlinks("pg_q4")["linked"] == []  # no link: at most a plain mention
    shown = vault.show(_claim_path(kit))
    assert "\n" not in shown["title"]
    html = render_markdown(shown["body"], shown["bodyLine"], shown.get("references") or [])
    for piece in (
        "[[Q4 planning 2026]]",
        "&lt;b&gt;x&lt;/b&gt;",
        "![img](http://example.org/x.png)",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&amp;amp;",
        "---",
    ):
        assert piece in html, (piece, html)
    assert "<a " not in html
    assert "<img" not in html
    assert "<hr" not in html
    assert "<b>" not in html


def _claim_path(kit: VaultKit) -> str:
    [path] = sorted((kit.root / "private" / "claims").glob("*.md"))
    return path.relative_to(kit.root).as_posix()


def test_a_run_belongs_to_the_extension_that_started_it(kit: VaultKit) -> None:
    """`cooks` names the run of `recipes`: refused (before, applied, and reverting that run
    undid `cooks`' write too); the person's revert of the run leaves `cooks`' fact."""
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    _install(kit, FOOD)
    _install(kit, FOOD, "facts.read:self:pref.food.*", name="cooks")
    put = {"predicateHint": "pref.food.rated"}
    _, [change] = _calls(
        kit,
        "recipes",
        [("knowledge_facts_put", {**put, "value": "stew"}), ("knowledge_changes_list", {})],
    )
    run = change["runId"]
    joined, own, before = _calls(
        kit,
        "cooks",
        [
            ("knowledge_facts_put", {**put, "value": "soup", "runId": run}),
            ("knowledge_facts_put", {**put, "value": "pie"}),
            ("knowledge_facts_lookup", {"prefix": "pref.food"}),
        ],
    )
    assert joined == f"run {run} belongs to another writer; leave runId out, or name a run of your own"
    assert own["status"] == "applied"
    assert sorted(f["value"] for f in before) == ["pie", "stew"]
    vault = kit.scan()
    undone = revert(person_changes(vault), run_id=run)
    assert [i.status for i in undone.items] == ["reverted"]
    [after] = _calls(kit, "cooks", [("knowledge_facts_lookup", {"prefix": "pref.food"})])
    assert [f["value"] for f in after] == ["pie"]


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "knowledge_facts_put",
        {"predicateHint": "pref.food.rated", "value": "x"},
        "facts.write:self:pref.food.rated",
    ),
    (
        "knowledge_facts_put",
        {"predicateHint": "Dishes", "value": "x", "subject": "ent_nobody"},
        "facts.write:",
    ),
    ("knowledge_facts_retract", {"ref": "fact_nobody"}, "facts.write:"),
    (
        "knowledge_documents_upsert",
        {"collection": "diary", "ref": "doc_nobody", "title": "t", "body": "b"},
        "collections.write:diary",
    ),
    (
        "knowledge_documents_upsert",
        {"collection": "col_nobody", "title": "t", "body": "b"},
        "collections.write:",
    ),
    ("knowledge_documents_delete", {"ref": "doc_nobody"}, "collections.write:"),
    ("knowledge_documents_get", {"ref": "doc_nobody"}, "collections.read:"),
    ("knowledge_documents_get_by_key", {"collection": "diary", "key": "nokey"}, "collections.read:diary"),
    ("knowledge_documents_list", {"collection": "col_nobody"}, "collections.read:"),
    ("knowledge_collections_create", {"name": "X", "parent": "col_nobody"}, "collections.create"),
    (
        "knowledge_entities_resolve",
        {"identifiers": {"email": "a@b.org"}, "create": True},
        "entities.write:person",
    ),
    ("knowledge_entities_get", {"ref": "ent_nobody"}, "entities.read:"),
    (
        "knowledge_entities_add_identifier",
        {"ref": "ent_nobody", "kind": "email", "value": "a@b.org"},
        "entities.write:",
    ),
]


def test_an_extension_without_grants_is_refused_before_anything_is_looked_up(kit: VaultKit) -> None:
    """No self page, no such refs: each call still answers with the permission it lacks, never
    with what it would have found out (`no self page`, `a diary entry's key is its date`)."""
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    _install(kit)
    answers = _calls(kit, "recipes", [(tool, args) for tool, args, _ in REFUSED])
    for (tool, _, needed), said in zip(REFUSED, answers, strict=True):
        assert isinstance(said, str), (tool, said)
        assert f"extension recipes lacks knowledge permission {needed}" in said, (tool, said)
    assert list_changes(person_changes(kit.scan())) == []  # nothing was written, nothing journaled


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def test_deep_and_huge_arguments_are_refused_with_one_sentence(kit: VaultKit) -> None:
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    _install(kit, FOOD)  # the size is checked before any permission: no diary grant needed
    put = {"predicateHint": "pref.food.rated"}
    very, deep, shallow, huge = _calls(
        kit,
        "recipes",
        [
            ("knowledge_facts_put", {**put, "value": _nested(150)}),
            ("knowledge_facts_put", {**put, "value": _nested(40)}),
            ("knowledge_facts_put", {**put, "value": _nested(30)}),
            (
                "knowledge_documents_upsert",
                {"collection": "diary", "key": "2026-10-01", "title": "t", "body": "b" * 6_000_001},
            ),
        ],
    )
    assert very == "JSON-RPC error -32600: a message nests more than 64 levels; the limit is 64"
    assert deep == (
        "knowledge_facts_put: the argument 'value' nests lists and objects more than 32 levels deep;"
        " the limit is 32"
    )
    assert shallow["status"] == "applied"
    upsert = "knowledge_documents_upsert"
    assert huge == f"{upsert}: the arguments are 6,000,071 characters as JSON; the limit is 6,000,000"


def _deep_call(ident: int, depth: int) -> str:
    value = "[" * depth + "]" * depth
    args = '{"predicateHint":"pref.food.rated","value":' + value + "}"
    return (
        f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call",'
        f'"params":{{"name":"knowledge_facts_put","arguments":{args}}}}}'
    )


def test_every_request_on_the_wire_gets_an_answer(kit: VaultKit) -> None:
    """Raw JSON-RPC over the server's stdin: deep, malformed and mistyped requests each get a
    JSON-RPC error with their id (null when it cannot be read), and the server still answers
    the ping and tools/list after them (before: the deep ones got no answer at all)."""
    kit.page("private/people/me.md", "pg_me", "Me", type="person", aliases=["knowledge:self"])
    _install(kit, FOOD)
    kit.close()
    sent = [
        _deep_call(2, 250),
        _deep_call(3, 1000),
        _deep_call(4, 100_000),
        '{"jsonrpc":"2.0","id":5,"method":',
        "not json at all",
        '{"id": 6, "foo": 1}',
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}',
        '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}',
        '{"jsonrpc":"2.0","id":9,"method":"no/such/method"}',
        '{"jsonrpc":"2.0","id":10,"method":"ping"}',
        '{"jsonrpc":"2.0","id":11,"method":"tools/list"}',
    ]
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-m", "knowledge_desktop.cli", "mcp", str(kit.root), "--extension", "recipes"]
    proc = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=REPO
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    answers: dict[Any, list[dict[str, Any]]] = {}
    try:
        lines = [json.dumps(hello), '{"jsonrpc":"2.0","method":"notifications/initialized"}', *sent]
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        with anyio.from_thread.start_blocking_portal() as portal:  # readline with a deadline
            while sum(len(v) for v in answers.values()) < len(sent) + 1:
                message = json.loads(portal.call(_read_line, proc.stdout))
                answers.setdefault(message.get("id"), []).append(message)
    finally:
        proc.kill()  # an unanswered request must not leave the server (and this test) waiting
        proc.wait(TIMEOUT_S)
        proc.stdin.close()
        proc.stdout.close()
    deep = "a message nests more than 64 levels; the limit is 64"
    for ident in (2, 3, 4):
        assert answers[ident] == [{"jsonrpc": "2.0", "id": ident, "error": {"code": -32600, "message": deep}}]
    parse_errors = answers[None]
    assert sorted(e["error"]["code"] for e in parse_errors) == [-32700, -32700]
    for ident in (6, 7, 8, 9):
        assert [set(a) for a in answers[ident]] == [{"jsonrpc", "id", "error"}], answers[ident]
    assert answers[10][0]["result"] == {}
    assert "knowledge_facts_put" in {t["name"] for t in answers[11][0]["result"]["tools"]}


async def _read_line(stream: Any) -> bytes:
    with anyio.fail_after(TIMEOUT_S):
        line: bytes = await anyio.to_thread.run_sync(stream.readline, abandon_on_cancel=True)
    assert line, "the server closed its output before answering every request"
    return line
