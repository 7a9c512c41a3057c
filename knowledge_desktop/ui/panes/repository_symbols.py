"""The Repository pane's code side: the Symbols tab and the code an entity links to.

Issue 31 §4. The tab lists the discovery snapshot's modules, each with the
names it exports (forwarding ones say where from); activating a symbol shows
its region in the pane's viewer, as a document region is shown. A concept
that defines a symbol, and a change that touched modules, get child rows
that lead there: `symbol_rows` builds them from the entity's links, looking
each target up in the snapshot, so what is shown is what the engine linked.
A vault page whose title or alias is exactly such a concept's name shows it
too, in the Backlinks pane's Documentation section (`concept_pages`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_claims import pages_named
from knowledge_desktop.ui.panes.backlinks_docs import DocIndex

ROLE = Qt.ItemDataRole.UserRole
MAX_TOUCHED_NAMES = 8
"""Symbols named on one touched-module row; the rest are counted."""


class SymbolIndex:
    """The snapshot looked up by module id and by (module id, symbol name)."""

    def __init__(self, snapshot: dict[str, Any] | None) -> None:
        self.modules: dict[str, dict[str, Any]] = {}
        self.symbols: dict[tuple[str, str], dict[str, Any]] = {}
        for module in (snapshot or {}).get("facts", []):
            self.modules[module["id"]] = module
            for s in module["symbols"]:
                self.symbols[(module["id"], s["name"])] = {**s, "path": module["path"]}


def region_of(symbol: dict[str, Any]) -> dict[str, Any]:
    """A symbol as the evidence shape the region viewer reads."""
    return {
        "kind": "document-region",
        "path": symbol["path"],
        "lineStart": symbol["lineStart"],
        "lineEnd": symbol["lineEnd"],
        "regionHash": symbol["regionHash"],
    }


def lines_text(symbol: dict[str, Any]) -> str:
    start, end = symbol["lineStart"], symbol["lineEnd"]
    return f"{start}" if start == end else f"{start}–{end}"


def fill_symbols_tree(tree: QTreeWidget, snapshot: dict[str, Any] | None) -> int:
    """Rebuild the Symbols tab from `snapshot`; returns how many symbols it lists."""
    tree.clear()
    total = 0
    for module in (snapshot or {}).get("facts", []):
        symbols = module["symbols"]
        total += len(symbols)
        count = f"{len(symbols)} name" + ("" if len(symbols) == 1 else "s")
        item = QTreeWidgetItem([module["path"], count, ""])
        item.setData(0, ROLE, ("module", module["id"]))
        item.setData(0, ROLE + 1, " ".join([module["path"], *(s["name"] for s in symbols)]))
        item.setToolTip(0, f"{module['path']}\n{module['language']}, {count} exported")
        for s in symbols:
            kind = s["kind"] + (
                f", passed on from {s['from']}" if s.get("forwarding") and s.get("from") else ""
            )
            child = QTreeWidgetItem([s["name"], kind, lines_text(s)])
            child.setData(0, ROLE, ("symbol", region_of({**s, "path": module["path"]})))
            child.setToolTip(0, s["id"])
            item.addChild(child)
        tree.addTopLevelItem(item)
    return total


def symbol_rows(entity: dict[str, Any], index: SymbolIndex) -> list[QTreeWidgetItem]:
    """Child rows for what `entity` links to in the code: the symbol a concept or decision
    defines (activating it shows the code), the modules a change touched (with their names)."""
    rows: list[QTreeWidgetItem] = []
    for link in entity.get("links", []):
        if link["kind"] == "defines-symbol":
            symbol = index.symbols.get((link["target"], str(link.get("symbol"))))
            if symbol is None:
                continue
            row = QTreeWidgetItem(
                [f"Defines symbol {symbol['name']} · {symbol['path']} · lines {lines_text(symbol)}"]
            )
            row.setData(0, ROLE, ("symbol", region_of(symbol)))
            row.setToolTip(0, "Show the code that declares it")
            rows.append(row)
        elif link["kind"] == "affected-fact":
            module = index.modules.get(link["target"])
            if module is None:
                continue
            names = [s["name"] for s in module["symbols"]]
            shown = ", ".join(names[:MAX_TOUCHED_NAMES])
            if len(names) > MAX_TOUCHED_NAMES:
                shown += f" and {len(names) - MAX_TOUCHED_NAMES} more"
            row = QTreeWidgetItem([f"Touched code: {module['path']}" + (f" — {shown}" if shown else "")])
            row.setData(0, ROLE, ("module", module["id"]))
            row.setToolTip(0, "Show this module's symbols")
            rows.append(row)
    return rows


def concept_pages(document: dict[str, Any], vault: Vault | None, root: Path) -> DocIndex:
    """Vault page id → the concepts defined in code whose term or alias is the page's title
    or alias, each worded with its symbol and module (runs on the extraction's worker)."""
    if vault is None:
        return {}
    defined: dict[str, list[tuple[dict[str, Any], dict[str, str]]]] = {}
    for e in document["entities"]:
        links = [lk for lk in e.get("links", []) if lk["kind"] == "defines-symbol"]
        if e["kind"] != "concept" or not links:
            continue
        for name in [e["name"], *e.get("aliases", [])]:
            defined.setdefault(name, []).append((e, links[0]))
    out: DocIndex = {}
    for name, pages in pages_named(vault, defined).items():
        for entity, link in defined[name]:
            module = str(link["target"]).removeprefix("module:")
            shown = f"{entity['name']} — defined in code: {link.get('symbol')} in {module}"
            for page in pages:
                out.setdefault(page, []).append((str(root), entity["id"], "concept", shown))
    return out
