"""The Backlinks tree, built from `Vault.backlinks` on the keyed tree model.

Four groups — linked from, relationships, referenced by, unlinked mentions —
become `TreeItem`s (ui/models/tree_model.py); empty groups are left out.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from knowledge_desktop.ui.models.tree_model import TreeItem, TreeModel


def readable_label(label: str) -> str:
    return label.replace("_", " ") if label else "(no label)"


def _title(entry: dict[str, Any]) -> str:
    return str(entry.get("title") or entry.get("path") or entry.get("id") or "?")


def _what(entry: dict[str, Any]) -> str:
    kind, type_ = entry.get("kind"), entry.get("type")
    return " · ".join(str(v) for v in (kind, type_) if v)


def _inactive(entry: dict[str, Any]) -> bool:
    if entry.get("kind") == "note":
        return False  # a note is never "current" as a record is, and is not dimmed for it
    return entry.get("eligible") is False or entry.get("lifecycle") not in (None, "active")


def _state_note(entry: dict[str, Any]) -> str:
    if entry.get("kind") == "note":
        return ""
    if entry.get("lifecycle") not in (None, "active"):
        return f"\n({entry['lifecycle']})"
    if entry.get("eligible") is False:
        return "\n(not current: invalid, duplicate or missing a dependency)"
    return ""


def _group(key: str, name: str, count: int, children: list[TreeItem], tip: str = "") -> TreeItem:
    return TreeItem(key, (f"{name}  ·  {count:,}",), tooltip=tip, group=True, children=children)


def _mark(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return None


def backlink_nodes(result: dict[str, Any]) -> list[TreeItem]:
    """The four groups as tree nodes; empty groups are left out."""
    me = _title(result)
    groups: list[TreeItem] = []
    counts = result.get("counts", {})

    linked = []
    for entry in result["linked"]:
        first = entry["lines"][0]["line"] if entry["lines"] else 0
        lines = [
            TreeItem(
                f"line:{item['line']}",
                (item["context"] or "(line not readable)",),
                open_key=entry["path"],
                line=item["line"],
                tooltip=f"{entry['path']}, line {item['line']}",
                mark=_mark(item.get("mark")),
                dim=_inactive(entry),
            )
            for item in entry["lines"]
        ]
        linked.append(
            TreeItem(
                f"src:{entry['path']}",
                (_title(entry),),
                open_key=entry["path"],
                line=first,
                tooltip=f"{_what(entry)}\n{entry['path']}{_state_note(entry)}",
                dim=_inactive(entry),
                children=lines,
            )
        )
    if linked:
        groups.append(
            _group(
                "linked",
                "Linked from",
                counts.get("linked", len(linked)),
                linked,
                f"Wikilinks and Markdown links to {me}, with the line that holds each",
            )
        )

    labels = []
    for group in result["relationships"]:
        items = []
        for item in group["items"]:
            rel, other = item["relationship"], item["other"]
            arrow = "→" if item["direction"] == "out" else "←"
            name = _title(other) if other.get("path") else f"{other.get('id')} (missing)"
            sentence = (
                f"{me} {readable_label(group['label'])} {name}"
                if item["direction"] == "out"
                else f"{name} {readable_label(group['label'])} {me}"
            )
            items.append(
                TreeItem(
                    f"rel:{rel['path']}:{item['direction']}",
                    (f"{arrow} {name}",),
                    open_key=other.get("path") or other.get("id"),
                    alt_key=rel["path"],
                    tooltip=f"{sentence}\nrelationship {rel['id']} — {rel['path']}{_state_note(rel)}",
                    dim=_inactive(rel),
                )
            )
        heading = group.get("name") or readable_label(group["label"])
        labels.append(
            _group(
                f"label:{group['label']}",
                heading,
                len(items),
                items,
                f"relationship label `{group['label']}`",
            )
        )
    if labels:
        groups.append(
            _group(
                "relationships",
                "Relationships",
                counts.get("relationships", len(labels)),
                labels,
                f"Relationship records with {me} as an endpoint (→ from it, ← to it)",
            )
        )

    fields = []
    for group in result["references"]:
        items = [
            TreeItem(
                f"ref:{entry['path']}",
                (_title(entry),),
                open_key=entry["path"],
                tooltip=f"{_what(entry)}\n{entry['path']}{_state_note(entry)}",
                dim=_inactive(entry),
            )
            for entry in group["items"]
        ]
        fields.append(
            _group(
                f"field:{group['field']}",
                group["name"],
                len(items),
                items,
                f"Records naming {me} in their `{group['field']}` field",
            )
        )
    if fields:
        groups.append(
            _group(
                "references",
                "Referenced by",
                counts.get("references", len(fields)),
                fields,
                f"Claims and pages that name {me} by id in a reference field",
            )
        )

    mentions = []
    for entry in result["mentions"]:
        context = TreeItem(
            f"line:{entry['line']}",
            (entry["context"] or _title(entry),),
            open_key=entry["path"],
            line=entry["line"],
            tooltip=f"mentions “{entry['name']}” — {entry['path']}"
            + (f", line {entry['line']}" if entry["line"] else " (in the title)"),
            mark=_mark(entry.get("mark")),
        )
        mentions.append(
            TreeItem(
                f"mention:{entry['path']}",
                (_title(entry),),
                open_key=entry["path"],
                line=entry["line"],
                tooltip=f"{_what(entry)}\n{entry['path']}",
                children=[context],
            )
        )
    if mentions:
        groups.append(
            _group(
                "mentions",
                "Unlinked mentions",
                len(mentions),
                mentions,
                f"Records whose text names {me} (title or alias) without linking to it",
            )
        )
    return groups


class BacklinksModel(TreeModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(("Backlinks",), parent)

    def set_result(self, result: dict[str, Any] | None) -> None:
        self.set_nodes(backlink_nodes(result) if result is not None else [])
