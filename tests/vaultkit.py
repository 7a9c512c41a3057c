"""Helpers the test modules share: builders for test vaults (records as YAML frontmatter
plus body, written to disk), a snapshot of the projections, and the window's idle wait.
Test modules import helpers from here, never from one another."""

from __future__ import annotations

import difflib
import hashlib
import os
import struct
import sys
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import DetailSource, RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.ontology.compose import ManifestSource, activate
from knowledge_desktop.engine.records.parse import parse_bytes
from knowledge_desktop.engine.store import guards
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write.context import WriteContext
from knowledge_desktop.engine.write.plan import Fence, Plan, Request

if TYPE_CHECKING:  # the engine's tests must not need Qt
    from pytestqt.qtbot import QtBot

    from knowledge_desktop.ui.main_window import MainWindow

TS = "2026-09-28T18:30:00.000Z"
CHANGE = {"reason": "corrected", "at": "2026-10-01T09:00:00.000Z"}
"""A `lifecycle_change` for records written as withdrawn or superseded."""

TABLES = (
    "catalog",
    "catalog_names",
    "links",
    "refs",
    "evidence",
    "diagnostics",
    "temporal_v1",
    "associations_v1",
    "graph_snapshot_v1",
    "facts_v1",
)
KEYWORD = ("keyword_rows_v1_private", "keyword_history_rows_v1_private")


def frontmatter(fields: dict[str, Any]) -> str:
    return yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)


def record_text(fields: dict[str, Any], body: str = "") -> str:
    return f"---\n{frontmatter(fields)}---\n{body}"


def envelope(record_id: str, kind: str, title: str, scope: str = "private", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "format": "knowledge-record-v1",
        "id": record_id,
        "revision": 1,
        "kind": kind,
        "title": title,
        "recorded_at": TS,
        "updated_at": TS,
        "scope": scope,
        "lifecycle": "active",
    }
    out.update(extra)
    return out


RECEIPT_KEYS = frozenset(
    {"requestId", "operation", "targetId", "reason", "items", "impact", "indexed", "git", "journalId", "at"}
)
"""The keys every write receipt carries (docs/writing.md, Receipts; `replacementId` only
where there is one)."""


class VaultKit:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._vault: Vault | None = None

    # -- writing files -----------------------------------------------------
    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def page(self, rel: str, record_id: str, title: str, body: str = "", **extra: Any) -> Path:
        scope = rel.split("/", 1)[0]
        return self.write(rel, record_text(envelope(record_id, "page", title, scope, **extra), body))

    def lantern_notes(self, count: int) -> None:
        """`count` notes titled "Lantern N", each saying so in its body: a queue of search text."""
        for n in range(count):
            body = f"Lantern number {n}.\n"
            self.page(f"private/notes/n{n:03}.md", f"pg_{n}", f"Lantern {n}", type="note", body=body)

    def claim(
        self, rel: str, record_id: str, title: str, body: str = "The claim text.", **extra: Any
    ) -> Path:
        scope = rel.split("/", 1)[0]
        fields: dict[str, Any] = {
            "claim_kind": "fact",
            "assertion_origin": "source",
            "attribution": "Ada in the stand-up",
            "evidence": [{"url": "https://example.org/notes"}],
        }
        fields.update(extra)
        return self.write(rel, record_text(envelope(record_id, "claim", title, scope, **fields), body))

    def relationship(
        self, rel: str, record_id: str, source: str, target: str, label: str, **extra: Any
    ) -> Path:
        scope = rel.split("/", 1)[0]
        fields: dict[str, Any] = {
            "from": source,
            "to": target,
            "label": label,
            "attribution": "Ada in the stand-up",
            "evidence": [{"url": "https://example.org/notes"}],
        }
        fields.update(extra)
        return self.write(
            rel,
            record_text(envelope(record_id, "relationship", f"{source} {label} {target}", scope, **fields)),
        )

    # -- opening ----------------------------------------------------------
    def open(self) -> Vault:
        self.close()
        self._vault = Vault.open(self.root)
        return self._vault

    def scan(self) -> Vault:
        vault = self._vault or self.open()
        vault.reconcile()
        return vault

    def close(self) -> None:
        if self._vault is not None:
            self._vault.close()
            self._vault = None

    # -- reading ----------------------------------------------------------
    def diagnostics(self, path: str | None = None) -> list[tuple[str, int | None]]:
        vault = self.scan()
        return [(d.code, d.line) for d in vault.diagnostics() if path is None or d.path == path]

    def codes(self, path: str | None = None) -> set[str]:
        return {code for code, _ in self.diagnostics(path)}

    def row(self, id_or_path: str) -> dict[str, Any]:
        rows = self.scan().find(id_or_path)
        assert len(rows) == 1, rows
        return rows[0]


def snapshot(vault: Vault) -> dict[str, list[tuple[object, ...]]]:
    """The projection tables' rows, comparable between two histories of one vault."""
    vault.index_keywords()
    conn = vault.store.reader()
    out = {t: sorted(map(tuple, conn.execute(f"SELECT * FROM {t}")), key=repr) for t in TABLES}
    for table in KEYWORD:  # rowids differ between histories; the rows must not
        fts = table.replace("rows", "fts")
        rows = conn.execute(
            f"SELECT r.*, f.title, f.aliases, f.body FROM {table} r JOIN {fts} f ON f.rowid = r.rowid"
        )
        out[table] = sorted((tuple(row)[1:] for row in rows), key=repr)
    return out


def fence_of(vault: Vault, record_id: str) -> str:
    """The fence `ID:REVISION:HASH` of a record as `show` gives it (what a writer read)."""
    view = vault.show(record_id)
    return f"{view['id']}:{view['revision']}:{view['hash']}"


def fresh_snapshot(root: Path, scratch: Path) -> dict[str, list[tuple[object, ...]]]:
    """The projections a fresh scan of `root`'s files gives (its state folder left out)."""
    import shutil

    copy = scratch / "fresh-scan"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".knowledge"), symlinks=True)
    with Vault.open(copy) as fresh:
        fresh.reconcile()
        return snapshot(fresh)


def wait_idle(qtbot: QtBot, window: MainWindow, timeout: int = 20_000) -> None:
    """Wait until every worker request the window made has been answered and no
    change is held back for the panes (the window spaces their updates)."""
    qtbot.waitUntil(lambda: window.settled, timeout=timeout)


# -- a graph in memory (tests/engine/graph) ---------------------------------------

TINY_ONTOLOGY = """\
format: knowledge-ontology-v1
name: tiny
version: 1.0.0
definitions:
  - name: person
    kind: page
    directory: people/
    fields:
      - name: role
        type: string
  - name: project
    kind: page
    directory: projects/
  - name: meeting
    kind: page
    directory: meetings/
    fields:
      - name: occurred_at
        type: string
  - name: works_on
    kind: relationship
    directory: relationships/
    from_types: [person]
    to_types: [project]
"""

CLAIM_FIELDS: dict[str, Any] = {
    "claim_kind": "fact",
    "assertion_origin": "source",
    "attribution": "Ada in the stand-up",
    "evidence": [{"url": "https://example.org/notes"}],
}


class GraphKit:
    """Files as bytes in a dict, applied to a graph one change at a time."""

    def __init__(self, *, release_details: bool = False) -> None:
        self.files: dict[str, bytes] = {}
        self.graph = VaultGraph()
        activation = activate(ManifestSource("private/ontology.yaml", TINY_ONTOLOGY), [])
        assert activation.ontology is not None, activation.failure
        self.graph.ontologies = {"private": activation}
        self.graph.probe = self.files.get
        if release_details:
            self.graph.details = DetailSource(self._read_back)

    def _read_back(self, paths: list[str]) -> list[RecordNode]:
        return [
            RecordNode(parse_bytes(p, p.split("/", 1)[0], self.files[p])) for p in paths if p in self.files
        ]

    # -- changing files ----------------------------------------------------
    def write(self, path: str, text: str | None) -> set[str]:
        """Create, change (text) or remove (None) a file; the paths derived again."""
        if text is None:
            del self.files[path]
            return self.graph.apply({path: None})
        data = text.encode("utf-8")
        self.files[path] = data
        return self.graph.apply({path: parse_bytes(path, path.split("/", 1)[0], data)})

    def page(self, rel: str, record_id: str, title: str, body: str = "", **extra: Any) -> set[str]:
        return self.write(f"private/{rel}", record_text(envelope(record_id, "page", title, **extra), body))

    def claim(
        self, rel: str, record_id: str, title: str, body: str = "The claim text.", **extra: Any
    ) -> set[str]:
        fields = {**CLAIM_FIELDS, **extra}
        return self.write(f"private/{rel}", record_text(envelope(record_id, "claim", title, **fields), body))

    def relationship(self, rel: str, record_id: str, source: str, target: str, label: str) -> set[str]:
        fields = {**CLAIM_FIELDS, "from": source, "to": target, "label": label}
        fields.pop("claim_kind")
        fields.pop("assertion_origin")
        text = record_text(envelope(record_id, "relationship", f"{source} {label} {target}", **fields))
        return self.write(f"private/{rel}", text)

    # -- reading -----------------------------------------------------------
    def derived(self, rel: str) -> Derived:
        return self.graph.derived[f"private/{rel}"]

    def codes(self, rel: str) -> list[str]:
        """Codes of what derivation found in the file, in order."""
        return [d.code for d in self.derived(rel).diagnostics]

    def eligible(self, rel: str) -> bool:
        derived = self.derived(rel)
        return derived.base_ok(self.graph.nodes[f"private/{rel}"].lifecycle) and derived.deps_ok

    def links(self, rel: str) -> list[tuple[str, str | None]]:
        """(status, target id) of each link in the file."""
        path = f"private/{rel}"
        return [
            (link.status, link.target_id) for link in self.derived(rel).resolved_links(self.graph.nodes[path])
        ]


# -- hostile vaults, and what browsing leaves behind ------------------------------------


def file_state(root: Path) -> dict[str, tuple[object, ...]]:
    """Every entry under `root` but the app's own `.knowledge/`, as it is on disk: a file
    by its bytes' sha256 and mtime, a symbolic link by its target and mtime, a folder by
    its mtime (which moves when anything is created or removed in it, even a temp file)."""
    out: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = Path(folder).relative_to(root)
        if rel_folder == Path("."):
            dirs[:] = [d for d in dirs if d != ".knowledge"]
        for name in dirs + [f for f in files if f != ".knowledge"]:
            path = Path(folder) / name
            rel = (rel_folder / name).as_posix()
            st = path.lstat()
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path), st.st_mtime_ns)
            elif path.is_dir():
                out[rel] = ("folder", st.st_mtime_ns)
            else:
                out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mtime_ns)
    return out


class _OpenRecorder:
    """The one audit hook of the test process (a hook cannot be removed) and where it records."""

    hooked = False
    found: list[str] | None = None

    @classmethod
    def audit(cls, event: str, args: tuple[Any, ...]) -> None:
        found = cls.found
        if event == "open" and found is not None and isinstance(args[0], str | bytes | os.PathLike):
            found.append(os.fsdecode(args[0]))


@contextmanager
def opened_files() -> Iterator[list[str]]:
    """The paths Python code opens while the block runs, in any thread of this process
    (`open`, `os.open`, `Path.read_bytes` …, through the `open` audit event)."""
    if not _OpenRecorder.hooked:
        sys.addaudithook(_OpenRecorder.audit)
        _OpenRecorder.hooked = True
    found: list[str] = []
    _OpenRecorder.found = found
    try:
        yield found
    finally:
        _OpenRecorder.found = None


def opened_under(opened: list[str], folder: Path) -> list[str]:
    """The opened paths whose real location (links followed) is in `folder`."""
    real = os.path.realpath(folder) + os.sep
    return [p for p in opened if os.path.realpath(p).startswith(real)]


def png(width: int, height: int) -> bytes:
    """A small opaque PNG: its size tells whether a viewer loaded it."""
    row = b"\x00" + b"\xff\x00\x00" * width
    raw = zlib.compress(row * height)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


HOSTILE_TITLE = "<script>alert('title')</script><img src=x onerror=alert(1)>"
HOSTILE_NOTE = "private/notes/<script>x.md"
"""A record whose file name, title, aliases and body all carry markup."""
LINKS_NOTE = "private/notes/links-out.md"
EVIDENCE_CLAIM = "private/claims/evidence-out.md"
YAML_NOTES = ("private/notes/yaml-apply.md", "private/notes/yaml-name.md", "private/notes/yaml-custom.md")


@dataclass
class Hostile:
    """A vault built to leave itself (see `hostile_vault`), and the folder beside it."""

    root: Path
    outside: Path
    secret_sha: str
    """sha256 of `outside/secret.txt`: evidence citing it verifies only if it was read."""
    marker: Path
    """Created if any YAML tag in the vault ever ran code."""
    picture: Path
    """A 97×61 PNG outside the vault: markup that loads it shows it at that size."""

    @property
    def picture_tag(self) -> str:
        return f'<img src="{self.picture}">'


def hostile_vault(kit: VaultKit, outside: Path) -> Hostile:
    """Records, links, evidence, manifests and symbolic links that try to reach `outside`
    (a folder beside the vault), run code from YAML, or inject markup."""
    outside.mkdir(parents=True, exist_ok=True)
    secret = b"TOP SECRET TEXT\n"
    (outside / "secret.txt").write_bytes(secret)
    (outside / "secret.md").write_text(
        record_text(envelope("pg_outside", "page", "Outside secret", type="note"), "TOP SECRET BODY\n"),
        encoding="utf-8",
    )
    (outside / "lib").mkdir(exist_ok=True)
    (outside / "lib" / "borrowed.yaml").write_text(
        "format: knowledge-ontology-v1\nname: borrowed-lib\nversion: 1.0.0\nextends: knowledge-default\n",
        encoding="utf-8",
    )
    picture = outside / "picture.png"
    picture.write_bytes(png(97, 61))
    marker = outside / "yaml-ran-code"
    hostile = Hostile(kit.root, outside, hashlib.sha256(secret).hexdigest(), marker, picture)

    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", body="Ada.\n")
    kit.page(
        LINKS_NOTE,
        "pg_links",
        "Links out",
        type="note",
        body=(
            "[[../../outside/secret]] and [[../outside/secret]] and [[/etc/passwd]] and [[people/ada]].\n\n"
            "[up](../../../outside/secret.md) [root](/etc/passwd) [abs](/etc/passwd.md)"
            " [encoded](%2e%2e/%2e%2e/%2e%2e/outside/secret.md)\n\n"
            "[js](javascript:alert(1)) [data](data:text/html,<script>alert(1)</script>)"
            " [file](file:///etc/passwd) [vb](vbscript:msgbox(1))\n\n"
            "<script>alert(1)</script>\n\n"
            '<img src="http://example.com/x.png" onerror="alert(1)"> and'
            f" {hostile.picture_tag}\n\n"
            "![remote](https://example.com/pixel.png) ![local](file:///etc/passwd)\n\n"
            '<iframe src="https://example.com"></iframe>\n\n'
            '<a href="javascript:alert(1)" onclick="alert(2)">raw link</a>\n'
        ),
    )
    kit.page(
        HOSTILE_NOTE,
        "pg_hostile",
        HOSTILE_TITLE,
        type="note",
        aliases=[f"<b onmouseover=alert(1)>alias</b> {hostile.picture_tag}"],
        body=f"Body <script>alert('body')</script> links [[{hostile.picture_tag}]] and [[people/ada]].\n",
    )
    kit.claim(
        EVIDENCE_CLAIM,
        "cl_evidence",
        "Evidence from outside",
        entities=["pg_ada"],
        evidence=[
            {"path": "../outside/secret.txt"},
            {"path": str(outside / "secret.txt"), "sha256": hostile.secret_sha},
            {"path": "linked/secret.txt", "sha256": hostile.secret_sha},
            {"path": "secret-link.txt", "sha256": hostile.secret_sha},
            {"path": "notes/out.md"},
        ],
    )
    touch = f"touch {marker}"
    kit.write(YAML_NOTES[0], f"---\nx: !!python/object/apply:os.system [{touch!r}]\n---\n")
    kit.write(YAML_NOTES[1], "---\nx: !!python/name:os.system\n---\n")
    kit.write(YAML_NOTES[2], "---\nformat: knowledge-record-v1\nid: !evil {run: yes}\n---\n")
    os.symlink(outside, kit.root / "private/linked")
    os.symlink(outside / "secret.txt", kit.root / "private/secret-link.txt")
    os.symlink(outside / "secret.md", kit.root / "private/notes/out.md")
    # Partition `lab` borrows its library folder from outside; `team` names a path.
    kit.page("lab/notes/a.md", "pg_lab", "Lab note", type="note")
    kit.write(
        "lab/ontology.yaml",
        "format: knowledge-ontology-v1\nname: lab\nversion: 1.0.0\nextends: borrowed-lib\n",
    )
    os.symlink(outside / "lib", kit.root / "lab/ontologies")
    kit.page("team/notes/a.md", "pg_team", "Team note", type="note")
    kit.write(
        "team/ontology.yaml",
        "format: knowledge-ontology-v1\nname: team\nversion: 1.0.0\nextends: ../../outside/lib/borrowed\n",
    )
    return hostile


# -- lifecycle operations as pure planners -----------------------------------------------

NOW = "2026-10-01T09:00:00.000Z"


def write_context(
    vault: Vault, operation: str = "test", *, request_id: str = "req-1", actor: str = "ada"
) -> WriteContext:
    """The `WriteContext` the publish path would hand a planner, at the fixed time `NOW`."""
    request = Request(request_id, operation, {}, actor)
    return WriteContext(
        vault.root,
        vault.store,
        vault.reconciler,
        vault.reconcile,
        request,
        vault.vault_id,
        NOW,
    )


def read_fence(vault: Vault, record_id: str) -> Fence:
    """What a writer holds after reading `record_id` now (reconciled first)."""
    vault.reconcile()
    return Fence.parse(fence_of(vault, record_id))


def changed_lines(old: bytes, new: bytes) -> tuple[list[str], list[str]]:
    """(lines only in old, lines only in new), in order: what a write changed."""
    a, b = old.decode().splitlines(), new.decode().splitlines()
    gone: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            gone += a[i1:i2]
            added += b[j1:j2]
    return gone, added


def apply_plan(vault: Vault, plan: Plan, request_id: str = "req-1") -> None:
    """Carry out a plan the simplest way (each file written whole after checking its
    expected hash, guards set, the paths reconciled): planner tests that chain operations
    use it where the publish path's journal and receipts are not what they check."""
    for write in plan.writes:
        path = vault.root / write.path
        old = path.read_bytes() if path.exists() else None
        assert (hashlib.sha256(old).hexdigest() if old is not None else None) == write.expected_sha256
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(write.data)
    with vault.store.write() as tx:
        for g in plan.guards:
            guards.set_guard(
                tx,
                scope=g.scope,
                record_id=g.record_id,
                guard=g.guard,
                by_id=g.by_id,
                request_id=request_id,
                reason=plan.reason or "",
                at=NOW,
                lift=g.lift,
            )
    vault.reconcile([w.path for w in plan.writes])


def frontmatter_of(data: bytes) -> dict[str, Any]:
    """A file's frontmatter as the reader sees it (YAML 1.2: timestamps stay text)."""
    from knowledge_desktop.engine.records import frontmatter as fm
    from knowledge_desktop.engine.records import yaml12

    split = fm.split(data.decode("utf-8").removeprefix("\ufeff"))
    assert split is not None
    loaded: dict[str, Any] = yaml12.load(split.yaml_text).data
    return loaded


@dataclass(frozen=True, slots=True)
class NoteLink:
    """One wikilink a generated note holds, and the note it means (partition-relative path)."""

    source: str
    target_text: str
    """What stands in the brackets before `#` and `|`."""
    embed: bool
    meant: str


_NOTE_FOLDERS = ("", "people/", "Projects/Sub Folder/", "daily/", "topics (misc)/")
_NOTE_WORDS = ("Ada's plan", "Q&A", "Café notes", "v2.0 (draft)", "Meeting, Monday", "Idea!", "to-do")


def obsidian_notes(base: Path, count: int, *, seed: int = 7) -> list[NoteLink]:
    """Write an Obsidian-style folder of `count` plain notes under `base` and return every
    wikilink written with the note it means. The link forms are Obsidian's: file name
    (`[[Name]]`), path (`[[folder/Name]]`), frontmatter alias, heading fragment, embed
    (`![[Name]]`), a label (`[[Name|label]]`); names hold spaces and punctuation. Some notes
    have no frontmatter, some Obsidian/Foam frontmatter (aliases, alias, tags as a list or a
    string, a title, unknown keys with comments), some a heading titled like another note's
    file name; a few file names repeat in other folders (reached by path only)."""
    import random

    rng = random.Random(seed)
    names: list[tuple[str, str]] = []  # (folder, stem)
    for i in range(count):
        folder = _NOTE_FOLDERS[i % len(_NOTE_FOLDERS)]
        stem = f"{_NOTE_WORDS[i % len(_NOTE_WORDS)]} {i}"
        if i % 97 == 5 and i > 10:
            stem = names[i - 6][1]  # the same file name as an earlier note, in another folder
            if folder == names[i - 6][0]:
                folder = "daily/" if folder != "daily/" else "people/"
        names.append((folder, stem))
    stems: dict[str, int] = {}
    for _folder, stem in names:
        stems[stem.lower()] = stems.get(stem.lower(), 0) + 1
    aliases = {i: f"Alias of {i}" for i in range(count) if i % 4 == 1}
    links: list[NoteLink] = []
    for i, (folder, stem) in enumerate(names):
        rel = f"{folder}{stem}.md"
        fm: list[str] = []
        if i in aliases:
            fm.append(f"aliases: [{aliases[i]!r}]" if i % 8 == 1 else f"aliases:\n- {aliases[i]}")
        if i % 6 == 2:
            fm.append("tags: [project, 'area/writing']   # from Obsidian")
        if i % 6 == 3:
            fm.append("tag: draft")
            fm.append('tags: "one, two"')
        if i % 10 == 7:
            fm.append(f"title: Foam title {i}")
        if i % 5 == 4:
            fm.append("created: 2024-03-01\ncssclass: wide  # keep me\nratings: {stars: 4}")
        body = []
        if i % 9 == 4 and i + 1 < count:
            body.append(f"# {names[i + 1][1]}\n")  # a heading named like the next note's file
        elif i % 3 != 0:
            body.append(f"# Heading for note {i}\n")
        body.append(f"\nSome text about note {i}. #topic-{i % 13} and #status/open\n")
        for _ in range(3):
            j = rng.randrange(count)
            jfolder, jstem = names[j]
            meant = f"{jfolder}{jstem}.md"
            unique = stems[jstem.lower()] == 1
            form = rng.randrange(6)
            if not unique or form == 1:
                text = f"{jfolder}{jstem}" if jfolder else jstem
                link = f"[[{text}]]"
            elif form == 2 and j in aliases:
                text = aliases[j]
                link = f"[[{text}]]"
            elif form == 3:
                text = jstem
                link = f"[[{text}#Some Heading]]"
            elif form == 4:
                text = jstem
                link = f"![[{text}]]"
            elif form == 5:
                text = jstem
                link = f"[[{text}|see this]]"
            else:
                text = jstem
                link = f"[[{text}]]"
            body.append(f"- {link}\n")
            links.append(NoteLink(rel, text, link.startswith("!"), meant))
        body.append("\n```\n[[Not A Link]] #not-a-tag\n```\n")
        head = "---\n" + "\n".join(fm) + "\n---\n" if fm else ""
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(head + "".join(body), encoding="utf-8")
    return links
