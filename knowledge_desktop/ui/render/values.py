"""Small HTML pieces shared by the record sections: values, record links, badges, rows.

Every string that comes from a record goes through `esc` (or `value_html`,
which escapes) before it is placed in markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from knowledge_desktop.ui.render.links import record_href
from knowledge_desktop.ui.render.theme import Colors

REF_STATUS_WORDS = {
    "missing": "not in this vault",
    "duplicate": "id used by several files",
    "wrong-kind": "not a page",
    "broken-merge": "broken merge chain",
    "ambiguous": "ambiguous",
}

LIFECYCLE_TONES = {"active": "success", "superseded": "warning", "withdrawn": "error", "merged": "info"}


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def literal(text: object) -> str:
    """Text that Qt shows as written where it guesses the format (tooltips, message boxes).

    Qt takes such text for rich text when its first line holds a tag, and
    rich text loads `<img src>` from any local path: a title such as
    `<img src="/dev/zero">` would read until the memory runs out. Text that
    could be markup is escaped and wrapped, so it is shown, never
    interpreted; other text is left as it is."""
    shown = str(text)
    if "<" not in shown and "&" not in shown:
        return shown
    return '<p style="white-space:pre-wrap">' + html.escape(shown, quote=False) + "</p>"


def title_attr(text: object) -> str:
    """A ` title="…"` attribute whose tooltip shows `text` as written (see `literal`)."""
    return f' title="{esc(literal(text))}"'


def muted(text: str) -> str:
    """Already-safe HTML shown in the muted colour."""
    return f'<span class="muted">{text}</span>'


def value_html(value: Any) -> str:
    """A frontmatter value as readable HTML: lists joined, mappings as key: value lines."""
    if value is None:
        return muted("—")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        if not value:
            return muted("(empty list)")
        if all(not isinstance(v, (list, dict)) for v in value):
            return ", ".join(value_html(v) for v in value)
        return "<br/>".join(f"• {value_html(v)}" for v in value)
    if isinstance(value, Mapping):
        if not value:
            return muted("(empty)")
        return "<br/>".join(f'<span class="muted">{esc(k)}:</span> {value_html(v)}' for k, v in value.items())
    text = str(value)
    if text == "":
        return muted("(empty text)")
    return esc(text).replace("\n", "<br/>")


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_instant(value: Any) -> tuple[datetime, bool] | None:
    """A timestamp or date value as an aware datetime, and whether it names a whole day
    (a bare date, or midnight UTC — how a date is written as an instant); None when unreadable."""
    if isinstance(value, datetime):
        parsed = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC), True
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        if _DATE.match(text):
            try:
                day = date.fromisoformat(text)
            except ValueError:
                return None
            return datetime(day.year, day.month, day.day, tzinfo=UTC), True
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
    else:
        return None
    utc = parsed.astimezone(UTC)
    whole_day = (utc.hour, utc.minute, utc.second, utc.microsecond) == (0, 0, 0, 0)
    return parsed, whole_day


def instant_text(value: Any, zone: tzinfo | None = None) -> str | None:
    """`2026-08-01` for a whole day, else `2026-09-28 20:30 CEST` in `zone` (None: the
    computer's local zone); None when the value is not a timestamp."""
    found = parse_instant(value)
    if found is None:
        return None
    moment, whole_day = found
    if whole_day:
        return moment.astimezone(UTC).strftime("%Y-%m-%d")
    local = moment.astimezone(zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or local.strftime('%z')}".rstrip()


def instant_html(value: Any, zone: tzinfo | None = None) -> str:
    """A timestamp shown readably, with the value as written in its tooltip."""
    shown = instant_text(value, zone)
    if shown is None:
        return value_html(value)
    raw = value.isoformat() if isinstance(value, (date, datetime)) else str(value)
    return f"<span{title_attr(raw)}>{esc(shown)}</span>"


def badge(text: str, tone: str, colors: Colors) -> str:
    """A small coloured label (lifecycle, verification) that reads in both palettes."""
    return (
        f'<span style="background-color:{colors.tint(tone)}; color:{colors.tone(tone)};'
        f' font-weight:600;">&nbsp;{esc(text)}&nbsp;</span>'
    )


def record_link(
    record_id: str,
    names: Mapping[str, Mapping[str, Any]],
    *,
    resolved: str | None = None,
    status: str = "resolved",
    line: int = 0,
) -> str:
    """A link to the record an id names, by title, with what is odd about it said next to it."""
    shown_id = resolved or record_id
    info = names.get(shown_id) or names.get(record_id)
    if info is None:
        word = REF_STATUS_WORDS.get(status, "not in this vault")
        return f'<span class="link-missing"{title_attr(record_id)}>{esc(record_id)}</span>' + muted(
            f" ({esc(word)})"
        )
    key = str(info.get("path") or info.get("id"))
    href = record_href(key) + (f"#{line}" if line else "")
    title = info.get("title") or info.get("id")
    tip = title_attr(f"{info.get('id')} — {key}")
    out = f'<a href="{esc(href)}"{tip}>{esc(title)}</a>'
    notes: list[str] = []
    if info.get("type"):
        notes.append(esc(info["type"]))
    if info.get("lifecycle") not in (None, "active"):
        notes.append(esc(info["lifecycle"]))
    if resolved and resolved != record_id:
        notes.append(f"via merged {esc(record_id)}")
    if status != "resolved":
        notes.append(esc(REF_STATUS_WORDS.get(status, status)))
    return out + (muted(" · " + " · ".join(notes)) if notes else "")


def field_rows(rows: Iterable[tuple[str, str]], tips: Mapping[str, str] | None = None) -> str:
    """A two-column table of label → HTML value; labels are escaped, values are trusted HTML."""
    tips = tips or {}
    body = "".join(
        f'<tr><td class="key" width="26%"{_tip(tips.get(label))}>{esc(label)}</td><td>{value}</td></tr>'
        for label, value in rows
    )
    if not body:
        return ""
    return f'<table class="fields" width="100%" cellspacing="0" cellpadding="3">{body}</table>'


def _tip(text: str | None) -> str:
    return title_attr(text) if text else ""


def section(title: str, content: str, anchor: str = "") -> str:
    if not content:
        return ""
    name = f' id="{esc(anchor)}"' if anchor else ""
    return f"<h3{name}>{esc(title)}</h3>\n{content}\n"
