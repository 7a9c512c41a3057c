"""The Timeline tree: dated records, source-grouped entity rows, or a chronicle.

Three shapes of engine answer become one tree of `TreeItem`s:
- timeline items: one row per dated record (When, Kind, Title);
- `group="source"` items: one row per dated source, with what it groups as
  children (the relationship note, the claim count, the records it links);
  claims without a dated source keep rows of their own;
- chronicle items: like timeline items, timed in the chosen zone, and in a
  week under one header per local day.

The model pages like Qt's lazy models: `canFetchMore` says the engine has
more, `fetchMore` asks the pane (through `fetch_more_requested`) for them,
and the answer is appended with `append_nodes`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Signal

from knowledge_desktop.ui.models.tree_model import TreeItem, TreeModel

Index = QModelIndex | QPersistentModelIndex

HEADERS = ("When", "Kind", "Title")


def _parse(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _offset_text(moment: datetime) -> str:
    offset = moment.utcoffset()
    if offset is None or not offset:
        return "UTC"
    return moment.strftime("%z")[:3] + ":" + moment.strftime("%z")[3:]


def when_text(item: dict[str, Any], chronicle: bool = False) -> str:
    """A date as its day; a moment as `YYYY-MM-DD HH:MM` in the zone it was asked in (or written in)."""
    value = str(item.get("value") or "")
    if item.get("dateOnly") or len(value) == 10:
        return "all day" if chronicle else value[:10]
    moment = _parse(str(item.get("local") or value))
    if moment is None:
        return value
    if chronicle:
        return moment.strftime("%H:%M")
    return f"{moment:%Y-%m-%d %H:%M} {_offset_text(moment)}"


def local_day(item: dict[str, Any]) -> str:
    """The day an item falls on in the zone the chronicle was asked in."""
    value = str(item.get("value") or "")
    if item.get("dateOnly") or len(value) == 10:
        return value[:10]
    moment = _parse(str(item.get("local") or item.get("start") or value))
    return moment.date().isoformat() if moment is not None else value[:10]


def day_heading(day: str) -> str:
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        return day
    return f"{parsed:%A} {parsed.day} {parsed:%B %Y}"


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _kind_text(item: dict[str, Any]) -> str:
    return " · ".join(str(v) for v in (item.get("kind"), item.get("type")) if v)


def _tooltip(item: dict[str, Any]) -> str:
    parts = [f"{item.get('field', 'occurred_at')}: {item.get('value')}"]
    if item.get("local"):
        parts.append(f"local: {item['local']}")
    parts.append(str(item.get("path") or ""))
    if item.get("lifecycle") not in (None, "active"):
        parts.append(f"({item['lifecycle']})")
    return "\n".join(parts)


def item_node(item: dict[str, Any], chronicle: bool = False) -> TreeItem:
    return TreeItem(
        f"{item.get('path')}|{item.get('start')}",
        (when_text(item, chronicle), _kind_text(item), str(item.get("title") or item.get("path") or "")),
        open_key=item.get("path") or item.get("id"),
        tooltip=_tooltip(item),
        dim=item.get("lifecycle") not in (None, "active"),
    )


def timeline_nodes(items: list[dict[str, Any]]) -> list[TreeItem]:
    return [item_node(item) for item in items]


def chronicle_nodes(items: list[dict[str, Any]], week: bool) -> list[TreeItem]:
    if not week:
        return [item_node(item, chronicle=True) for item in items]
    days: dict[str, list[TreeItem]] = {}
    for item in items:
        days.setdefault(local_day(item), []).append(item_node(item, chronicle=True))
    return [
        TreeItem(
            f"day:{day}", (day_heading(day), plural(len(nodes), "record"), ""), group=True, children=nodes
        )
        for day, nodes in sorted(days.items())
    ]


def source_nodes(items: list[dict[str, Any]], titles: dict[str, dict[str, Any]]) -> list[TreeItem]:
    """Rows of an entity's Timeline grouped by source; `titles` maps ids to catalog facts."""
    out: list[TreeItem] = []
    for item in items:
        source = item.get("source")
        if source is None:  # a claim that keeps its own row
            facts = titles.get(str(item.get("id")), {})
            out.append(item_node({**facts, **item, "title": facts.get("title") or item.get("id")}))
            continue
        facts = titles.get(str(source["id"]), {})
        children: list[TreeItem] = []
        if item.get("summary"):
            summary = " ".join(str(item["summary"]).split())
            children.append(
                TreeItem(
                    "summary",
                    ("", "note", summary if len(summary) <= 240 else summary[:239] + "…"),
                    open_key=item.get("noteRecord") or source["path"],
                    tooltip=str(item["summary"]),
                )
            )
        if item.get("claims"):
            count = int(item["claims"])
            children.append(
                TreeItem(
                    "claims",
                    ("", "claims", f"{plural(count, 'claim')} from this source"),
                    open_key=source["path"],
                    tooltip="Claims about the entity that cite this source",
                )
            )
        for link in item.get("links") or []:
            linked = titles.get(str(link), {})
            children.append(
                TreeItem(
                    f"link:{link}",
                    ("", _kind_text(linked) or "link", f"→ {linked.get('title') or link}"),
                    open_key=linked.get("path") or str(link),
                    tooltip=f"Linked from the summary: {linked.get('path') or link}",
                )
            )
        row = {**item, "kind": facts.get("kind", "page"), "type": facts.get("type"), "path": source["path"]}
        out.append(
            TreeItem(
                f"source:{source['id']}",
                (when_text(row), _kind_text(row), str(source.get("title") or source["id"])),
                open_key=source["path"],
                tooltip=f"occurred_at: {item.get('value')}\n{source['path']}",
                children=children,
            )
        )
    return out


class TimelineModel(TreeModel):
    fetch_more_requested = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(HEADERS, parent)
        self.more = False
        self.loading = False
        self.fetch_allowed: Callable[[], bool] = lambda: True
        """Set by the pane to its view's visibility. A view out of sight (a tab
        behind another) counts as scrolled to its end, so Qt would ask for page
        after page until the whole vault's timeline was loaded."""

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and self.more and not self.loading and self.fetch_allowed()

    def fetchMore(self, parent: Index) -> None:
        if self.canFetchMore(parent):
            self.loading = True
            self.fetch_more_requested.emit()
