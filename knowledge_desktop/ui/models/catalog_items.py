"""The rows of the catalog tree, and the keys that name its branches.

A `CatalogItem` is one row: a partition, a kind, a type, a partition's
Invalid or Unrecognized group, the Notes section and its folders (issue 25),
or a file (a record, a note, or a file that is neither). Items that hold
files ("branches") carry the engine `Branch` that lists them. Branch keys
are plain tuples so the pane can compare the branches it has loaded with
those a change or a counts tree names.
"""

from __future__ import annotations

from typing import Any

from knowledge_desktop.engine.query.catalog_tree import Branch

KIND_ORDER = {"page": 0, "claim": 1, "relationship": 2}
BRANCH_KINDS = ("type", "invalid", "unrecognized", "note-folder")
EARLIER = "earlier"
"""The kind of the row above a branch's window that stands for the files before it."""


class CatalogItem:
    """One row of the tree; record nodes carry the engine's item dict."""

    __slots__ = (
        "branch",
        "children",
        "count",
        "item",
        "key",
        "kind",
        "parent",
        "pending",
        "row",
        "start",
        "why",
    )

    def __init__(self, kind: str, key: tuple[Any, ...], parent: CatalogItem | None = None) -> None:
        self.kind = kind
        self.key = key
        self.parent = parent
        self.children: list[CatalogItem] = []
        self.row = 0
        self.count = 0
        self.why: str | None = None
        self.item: dict[str, Any] = {}
        self.branch: Branch | None = None
        self.pending = False
        self.start = 0
        """A branch's position in its listing of the first file row it holds (see `lead`)."""

    @property
    def is_branch(self) -> bool:
        return self.kind in BRANCH_KINDS

    @property
    def lead(self) -> int:
        """1 when the branch's first row stands for the `start` files not loaded above its
        window (an `earlier` row), else 0: file rows are `children[lead:]`."""
        return 1 if self.children and self.children[0].kind == EARLIER else 0

    @property
    def loaded(self) -> int:
        """How many file rows the branch holds."""
        return len(self.children) - self.lead

    @property
    def end(self) -> int:
        """The listing position just past the last file row held."""
        return self.start + self.loaded

    def renumber(self, start: int = 0) -> None:
        for i in range(start, len(self.children)):
            self.children[i].row = i


def build_items(tree: dict[str, Any]) -> list[CatalogItem]:
    """Structural items (no file rows) for an engine `tree` answer, in display order."""
    scopes: list[CatalogItem] = []
    for part in tree["partitions"]:
        scope = part["scope"]
        node = CatalogItem("scope", ("scope", scope))
        node.count = part["count"]
        kinds = sorted(part["kinds"], key=lambda k: (KIND_ORDER.get(k["kind"], 9), k["kind"] or ""))
        for kind in kinds:
            kind_node = CatalogItem("kind", ("kind", scope, kind["kind"]), node)
            kind_node.count = kind["count"]
            for t in kind["types"]:
                type_node = CatalogItem("type", ("type", scope, kind["kind"], t["type"]), kind_node)
                type_node.count = t["count"]
                type_node.branch = Branch("type", scope, kind["kind"], t["type"])
                kind_node.children.append(type_node)
            node.children.append(kind_node)
        for group, why in (("invalid", "invalidWhy"), ("unrecognized", "unrecognizedWhy")):
            if part[group]:
                group_node = CatalogItem(group, (group, scope), node)
                group_node.count = part[group]
                group_node.why = part[why]
                group_node.branch = Branch(group, scope)
                node.children.append(group_node)
        scopes.append(node)
    notes = tree.get("notes") or {}
    if notes.get("count"):
        section = CatalogItem("notes", ("notes",))
        section.count = notes["count"]
        for entry in notes["folders"]:
            folder = CatalogItem("note-folder", ("note", entry["folder"]), section)
            folder.count = entry["count"]
            folder.branch = Branch("note", None, folder=entry["folder"])
            section.children.append(folder)
        scopes.append(section)
    for node in scopes:
        _renumber_all(node)
    return scopes


def _renumber_all(node: CatalogItem) -> None:
    node.renumber()
    for child in node.children:
        _renumber_all(child)


def branch_key(branch: Branch) -> tuple[Any, ...]:
    if branch.group == "note":
        return ("note", branch.folder or "")
    if branch.group == "type":
        return ("type", branch.scope, branch.kind, branch.type)
    return (branch.group, branch.scope)


def branch_totals(tree: dict[str, Any]) -> dict[tuple[Any, ...], int]:
    """Row count of every branch in a counts tree, keyed like the items' branches."""
    out: dict[tuple[Any, ...], int] = {}
    for part in tree["partitions"]:
        scope = part["scope"]
        for kind in part["kinds"]:
            for t in kind["types"]:
                out[("type", scope, kind["kind"], t["type"])] = t["count"]
        for group in ("invalid", "unrecognized"):
            if part[group]:
                out[(group, scope)] = part[group]
    for entry in (tree.get("notes") or {}).get("folders", []):
        out[("note", entry["folder"])] = entry["count"]
    return out
