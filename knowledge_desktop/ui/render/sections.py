"""The parts of a record below its body: assertion details, evidence, fields, problems.

Each function takes the `Vault.show()` answer (`view`) and the
`Vault.record_context()` answer (`context`) and returns an HTML fragment,
empty when the record has nothing to show there.
"""

from __future__ import annotations

import posixpath
from datetime import datetime
from typing import Any

from knowledge_desktop.ui.render.links import external_href, line_href, record_href
from knowledge_desktop.ui.render.theme import Colors
from knowledge_desktop.ui.render.values import (
    badge,
    esc,
    field_rows,
    instant_html,
    muted,
    parse_instant,
    record_link,
    section,
    title_attr,
    value_html,
)

ENVELOPE_KEYS = (
    "format",
    "id",
    "revision",
    "kind",
    "title",
    "recorded_at",
    "updated_at",
    "scope",
    "lifecycle",
    "aliases",
    "tags",
    "dependencies",
    "supersedes",
    "superseded_by",
    "lifecycle_change",
    "merged_into",
    "merged_from",
    "recall",
)
ASSERTION_TIME_KEYS = ("valid_from", "valid_until", "expires_at")
KIND_KEYS = {
    "page": ("type", "fields", "evidence"),
    "claim": (
        "claim_kind",
        "assertion_origin",
        "attribution",
        "evidence",
        "entities",
        "occurred_at",
        "owner",
        "due_at",
        *ASSERTION_TIME_KEYS,
    ),
    "relationship": ("from", "to", "label", "attribution", "evidence", *ASSERTION_TIME_KEYS),
}
ORIGIN_WORDS = {
    "source": "stated in a source",
    "user_belief": "the user's belief",
    "agent_inference": "inferred by an agent",
}
SEVERITY_TONES = {"error": "error", "warning": "warning", "info": "info"}


def _refs(view: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(r["field"]), str(r["target"])): r for r in view.get("typedReferences") or []}


def _ref_link(view: dict[str, Any], context: dict[str, Any], field: str, target: Any) -> str:
    if not isinstance(target, str):
        return value_html(target)
    ref = _refs(view).get((field, target))
    return record_link(
        target,
        context.get("names") or {},
        resolved=ref.get("id") if ref else None,
        status=str(ref.get("status")) if ref else "resolved",
    )


def _ref_links(view: dict[str, Any], context: dict[str, Any], field: str, value: Any) -> str:
    if isinstance(value, list):
        return "<br/>".join(_ref_link(view, context, field, v) for v in value) or muted("(none)")
    return _ref_link(view, context, field, value)


def _parse_instant(value: Any) -> datetime | None:
    found = parse_instant(value)
    return found[0] if found else None


def validity_html(data: dict[str, Any], now: datetime) -> tuple[str, str]:
    """The validity window and the expiry, each with a note when `now` is outside it."""
    start, end, expires = (data.get(k) for k in ASSERTION_TIME_KEYS)
    window = ""
    if start is not None or end is not None:
        parts = []
        if start is not None:
            parts.append(f"from {instant_html(start)}")
        if end is not None:
            parts.append(f"until {instant_html(end)} {muted('(exclusive)')}")
        window = " ".join(parts)
        begins, ends = _parse_instant(start), _parse_instant(end)
        if begins is not None and now < begins:
            window += " " + muted("— not valid yet")
        elif ends is not None and now >= ends:
            window += " " + muted("— ended")
    expiry = ""
    if expires is not None:
        expiry = instant_html(expires)
        at = _parse_instant(expires)
        if at is not None and now >= at:
            expiry += " " + muted("— expired: left out of active results")
    return window, expiry


def claim_section(view: dict[str, Any], context: dict[str, Any], now: datetime) -> str:
    data = view.get("frontmatter") or {}
    rows: list[tuple[str, str]] = [
        ("Claim kind", value_html(data.get("claim_kind"))),
    ]
    origin = data.get("assertion_origin")
    if origin is not None:
        word = ORIGIN_WORDS.get(str(origin))
        rows.append(("Assertion origin", value_html(origin) + (muted(f" — {esc(word)}") if word else "")))
    rows.append(("Attribution", value_html(data.get("attribution"))))
    if "entities" in data:
        rows.append(("Entities", _ref_links(view, context, "entities", data["entities"])))
    for key, label in (("occurred_at", "Occurred"), ("due_at", "Due")):
        if key in data:
            rows.append((label, instant_html(data[key])))
    if "owner" in data:
        rows.append(("Owner", _ref_link(view, context, "owner", data["owner"])))
    window, expiry = validity_html(data, now)
    if window:
        rows.append(("Valid", window))
    if expiry:
        rows.append(("Expires", expiry))
    return section("Claim", field_rows(rows), "claim")


def relationship_section(view: dict[str, Any], context: dict[str, Any], now: datetime) -> str:
    data = view.get("frontmatter") or {}
    definition = context.get("definition") or {}
    label = data.get("label")
    label_html = value_html(label)
    if definition.get("label"):
        label_html = f"<b>{esc(definition['label'])}</b> " + muted(f"({esc(label)})")
    if definition.get("description"):
        label_html += "<br/>" + muted(esc(definition["description"]))
    rows = [
        ("From", _ref_link(view, context, "from", data.get("from"))),
        ("Label", label_html),
        ("To", _ref_link(view, context, "to", data.get("to"))),
        ("Attribution", value_html(data.get("attribution"))),
    ]
    constraints = [
        f"{side} {', '.join(esc(t) for t in definition[key])}"
        for side, key in (("from", "from_types"), ("to", "to_types"))
        if definition.get(key)
    ]
    if constraints:
        rows.append(("Allowed endpoints", muted("; ".join(constraints))))
    window, expiry = validity_html(data, now)
    if window:
        rows.append(("Valid", window))
    if expiry:
        rows.append(("Expires", expiry))
    return section("Relationship", field_rows(rows), "relationship")


def evidence_section(view: dict[str, Any], context: dict[str, Any], colors: Colors) -> str:
    data = view.get("frontmatter") or {}
    written = data.get("evidence")
    if not isinstance(written, list) or not written:
        if view.get("kind") in ("claim", "relationship"):
            text = f"{view['kind'].capitalize()}s need at least one piece of evidence; this one has none."
            return section("Evidence", f'<p class="link-missing">{esc(text)}</p>', "evidence")
        return ""
    checked = {int(e["index"]): e for e in context.get("evidence") or []}
    items = [_evidence_item(n, item, checked.get(n), view, context, colors) for n, item in enumerate(written)]
    return section(f"Evidence ({len(items)})", "".join(items), "evidence")


def _evidence_item(
    n: int,
    item: Any,
    checked: dict[str, Any] | None,
    view: dict[str, Any],
    context: dict[str, Any],
    colors: Colors,
) -> str:
    if not isinstance(item, dict):
        return f"<p><b>{n + 1}.</b> {value_html(item)} {badge('malformed', 'error', colors)}</p>"
    lines = item.get("lines")
    first = lines[0] if isinstance(lines, list) and lines and isinstance(lines[0], int) else 0
    locators: list[str] = []
    if isinstance(item.get("source"), str):
        link = record_link(item["source"], context.get("names") or {}, line=first)
        locators.append(f"source {link}")
    if isinstance(item.get("path"), str):
        key = posixpath.normpath(posixpath.join(str(view.get("scope") or ""), item["path"]))
        href = record_href(key) + (f"#{first}" if first else "")
        locators.append(f'file <a href="{esc(href)}"{title_attr(key)}>{esc(item["path"])}</a>')
    if item.get("url") is not None:
        url = str(item["url"])
        allowed = external_href(url)
        shown = (
            f'<a href="{esc(allowed)}" title="Opens outside the app">{esc(url)}</a>'
            if allowed
            else f'<span class="refused" title="Not a link the app follows">{esc(url)}</span>'
        )
        locators.append(f"web {shown}")
    if isinstance(lines, list) and len(lines) == 2:
        span = f"line {esc(lines[0])}" if lines[0] == lines[1] else f"lines {esc(lines[0])}–{esc(lines[1])}"
        locators.append(muted(span))
    status = str(checked["status"]) if checked else "unchecked"
    tone, word = {
        "verified": ("success", "verified"),
        "unverified": ("error", "unverified"),
        "offline": ("neutral", "not checked offline"),
    }.get(status, ("warning", status))
    reason = f" {muted(esc(checked['reason']))}" if checked and checked.get("reason") else ""
    out = f"<p><b>{n + 1}.</b> {badge(word, tone, colors)}{reason} {' · '.join(locators)}</p>"
    if item.get("quote"):
        out += f'<blockquote class="quote">“{esc(item["quote"])}”</blockquote>'
    extras = []
    if item.get("attribution"):
        extras.append(f"attributed to {esc(item['attribution'])}")
    if item.get("sha256"):
        digest = str(item["sha256"])
        extras.append(f"sha256 <code{title_attr(digest)}>{esc(digest[:12])}…</code>")
    if extras:
        out += f'<p class="indent">{muted(" · ".join(extras))}</p>'
    return out


def fields_section(view: dict[str, Any], context: dict[str, Any]) -> str:
    data = view.get("frontmatter") or {}
    fields = data.get("fields")
    definition = context.get("definition") or {}
    declared = [f for f in definition.get("fields") or [] if isinstance(f, dict)]
    if not isinstance(fields, dict):
        if fields is None and not declared:
            return ""
        fields = {} if fields is None else {"(not a mapping)": fields}
    rows: list[tuple[str, str]] = []
    tips: dict[str, str] = {}
    for field in declared:
        name = str(field.get("name"))
        label = str(field.get("label") or name)
        if field.get("description"):
            tips[label] = str(field["description"])
        if name in fields:
            rows.append((label, value_html(fields[name])))
        elif field.get("required"):
            rows.append((label, '<span class="link-missing">missing</span>' + muted(" (required)")))
    known = {str(f.get("name")) for f in declared}
    for name, value in fields.items():
        if name not in known:
            note = muted(" — not declared by the type") if declared or definition else ""
            rows.append((str(name), value_html(value) + note))
    title = f"{definition['label']} fields" if definition.get("label") else "Fields"
    return section(title, field_rows(rows, tips) or muted("No fields set."), "fields")


def record_section(view: dict[str, Any], context: dict[str, Any]) -> str:
    data = view.get("frontmatter") or {}
    rows: list[tuple[str, str]] = [
        ("Id", f"<code>{esc(data['id'])}</code>" if "id" in data else muted("—")),
        ("Revision", value_html(data.get("revision"))),
        ("Partition", value_html(data.get("scope", view.get("scope")))),
        ("Recorded", instant_html(data.get("recorded_at"))),
        ("Updated", instant_html(data.get("updated_at"))),
    ]
    for key, label in (("aliases", "Aliases"), ("tags", "Tags")):
        if key in data:
            rows.append((label, value_html(data[key])))
    for key, label in (
        ("dependencies", "Depends on"),
        ("supersedes", "Supersedes"),
        ("superseded_by", "Superseded by"),
        ("merged_into", "Merged into"),
        ("merged_from", "Merged from"),
    ):
        if key in data:
            rows.append((label, _ref_links(view, context, key, data[key])))
    change = data.get("lifecycle_change")
    if isinstance(change, dict):
        parts = [esc(change.get("reason") or "")]
        meta = [instant_html(change["at"])] if change.get("at") else []
        meta += [esc(change["actor"])] if change.get("actor") else []
        if meta:
            parts.append(muted(" · ".join(meta)))
        if change.get("request_id"):
            parts.append(muted(f"request <code>{esc(change['request_id'])}</code>"))
        rows.append(("Lifecycle change", "<br/>".join(p for p in parts if p)))
    elif change is not None:
        rows.append(("Lifecycle change", value_html(change)))
    if "recall" in data:
        rows.append(("Recall", value_html(data["recall"])))
    if data.get("format") not in (None, "knowledge-record-v1"):
        rows.append(("Format", value_html(data["format"])))
    return section("Record", field_rows(rows), "record")


def other_fields_section(view: dict[str, Any]) -> str:
    data = view.get("frontmatter")
    if not isinstance(data, dict):
        return ""
    known = set(ENVELOPE_KEYS) | set(KIND_KEYS.get(str(data.get("kind")), ()))
    rows = [(str(k), value_html(v)) for k, v in data.items() if k not in known]
    if not rows:
        return ""
    note = f'<p class="muted">Kept in the file as written; not part of the {esc("record format")}.</p>'
    return section("Other fields", note + field_rows(rows), "other")


def diagnostics_section(view: dict[str, Any], colors: Colors) -> str:
    # A note's `plain-note` info is not a problem: it is said once, quietly, at the end.
    every = view.get("diagnostics") or []
    found = [d for d in every if d.get("code") != "plain-note"]
    about = "".join(
        f"<p class='muted'>{esc(d.get('message'))}</p>" for d in every if d.get("code") == "plain-note"
    )
    if not found:
        return about
    items = []
    for d in found:
        tone = SEVERITY_TONES.get(str(d.get("severity")), "info")
        where = (
            f'<a href="{line_href(int(d["line"]))}" title="Show this line in the source">line {d["line"]}</a>'
            if isinstance(d.get("line"), int) and d["line"] > 0
            else muted("whole file")
        )
        items.append(
            f"<p>{badge(str(d.get('severity')), tone, colors)} {where} "
            f"<code class='muted'>{esc(d.get('code'))}</code><br/>{esc(d.get('message'))}</p>"
        )
    return section(f"Problems ({len(found)})", "".join(items), "problems") + about
