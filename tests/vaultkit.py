"""Helpers the test modules share: builders for test vaults (records as YAML frontmatter
plus body, written to disk), a snapshot of the projections, and the window's idle wait.
Test modules import helpers from here, never from one another."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from knowledge_desktop.engine.graph.derived import Derived
from knowledge_desktop.engine.graph.node import DetailSource, RecordNode
from knowledge_desktop.engine.graph.vault_graph import VaultGraph
from knowledge_desktop.engine.ontology.compose import ManifestSource, activate
from knowledge_desktop.engine.records.parse import parse_bytes
from knowledge_desktop.engine.vault import Vault

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
