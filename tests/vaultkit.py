"""Helpers the test modules share: builders for test vaults (records as YAML frontmatter
plus body, written to disk), a snapshot of the projections, and the window's idle wait.
Test modules import helpers from here, never from one another."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

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
