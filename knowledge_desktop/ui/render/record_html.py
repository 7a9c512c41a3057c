"""One record as two HTML pieces: a header (for a QLabel) and a document (for a QTextBrowser).

The header names the record — title, kind and type, a lifecycle badge,
revision, "Saved by" when an agent wrote this revision, id and path — and
stays put while the document scrolls. The document holds the banners that
say what state the record is in (replaced, withdrawn, merged, invalid, not a
record, gone from disk), the rendered body, and the sections from
`sections.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from knowledge_desktop.ui.render import sections
from knowledge_desktop.ui.render.links import line_href, record_href
from knowledge_desktop.ui.render.markdown import Hooks, render_markdown
from knowledge_desktop.ui.render.note_text import split_properties
from knowledge_desktop.ui.render.theme import Colors
from knowledge_desktop.ui.render.values import (
    LIFECYCLE_TONES,
    badge,
    esc,
    field_rows,
    instant_html,
    muted,
    section,
    value_html,
)

BANNER_DIAGNOSTICS = 3


def stylesheet(colors: Colors) -> str:
    """CSS for Qt's rich-text engine (it honours class selectors and simple properties)."""
    return f"""
body {{ color: {colors.text}; }}
a {{ color: {colors.link}; }}
.muted {{ color: {colors.muted}; }}
.refused {{ color: {colors.muted}; }}
.link-missing, .link-duplicate, .link-wrong-kind {{ color: {colors.error}; }}
.link-ambiguous, .link-outside, .link-broken-merge, .link-not-indexed, .link-unindexed {{
  color: {colors.warning}; }}
sup {{ font-size: small; }}
a.tag {{ color: {colors.link}; background-color: {colors.alt_base}; text-decoration: none; }}
.embed-missing {{ color: {colors.muted}; font-style: italic; }}
table.embed {{ background-color: {colors.alt_base}; margin-top: 6px; margin-bottom: 6px; }}
pre {{ background-color: {colors.alt_base}; font-family: monospace; white-space: pre-wrap; }}
code {{ font-family: monospace; background-color: {colors.alt_base}; }}
p.raw {{ font-family: monospace; color: {colors.muted}; }}
p.indent {{ margin-left: 24px; }}
blockquote {{ color: {colors.muted}; margin-left: 16px; }}
blockquote.quote {{ margin-left: 24px; font-style: italic; }}
table.md {{ border-color: {colors.border}; border-style: solid; border-collapse: collapse; }}
table.fields td {{ border-bottom: 1px solid {colors.border}; }}
td.key {{ color: {colors.muted}; font-weight: 600; }}
h1 {{ font-size: x-large; }}
h2 {{ font-size: large; }}
h3 {{ margin-top: 18px; color: {colors.text}; }}
"""


def _banner(tone: str, title: str, text: str, colors: Colors) -> str:
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" style="margin-bottom: 8px;"'
        f' bgcolor="{colors.tint(tone)}"><tr><td>'
        f'<b style="color:{colors.tone(tone)};">{esc(title)}</b> {text}</td></tr></table>\n'
    )


def _reason(data: dict[str, Any]) -> str:
    change = data.get("lifecycle_change")
    if not isinstance(change, dict) or not change.get("reason"):
        return ""
    who = " · ".join(
        instant_html(change[k]) if k == "at" else esc(change[k]) for k in ("actor", "at") if change.get(k)
    )
    return f"<br/>Reason: {esc(change['reason'])}" + (muted(f" — {who}") if who else "")


def _target_link(end: dict[str, Any] | None, fallback_id: Any) -> str:
    if end and end.get("path"):
        title = end.get("title") or end.get("id")
        return f'<a href="{esc(record_href(str(end["path"])))}">{esc(title)}</a>'
    if isinstance(fallback_id, str):
        return f'<span class="link-missing">{esc(fallback_id)}</span> {muted("(not in this vault)")}'
    return muted("(not named)")


def lifecycle_banners(view: dict[str, Any], context: dict[str, Any], colors: Colors) -> str:
    data = view.get("frontmatter") or {}
    lifecycle = view.get("lifecycle")
    out = ""
    if lifecycle == "superseded":
        end = context.get("current")
        text = f"This {esc(view.get('kind') or 'record')} was replaced; the current version is "
        text += _target_link(end, data.get("superseded_by")) + "."
        if end and end.get("hops", 1) > 1:
            text += muted(f" (followed {end['hops']} replacements)")
        if end and not end.get("complete", True):
            text += muted(" The replacement chain is broken.")
        out += _banner("warning", "Superseded.", text + _reason(data), colors)
    elif lifecycle == "withdrawn":
        text = "This record was retracted. It is kept for the record but left out of lookups and search."
        out += _banner("error", "Withdrawn.", text + _reason(data), colors)
    elif lifecycle == "merged":
        end = context.get("survivor")
        text = "This page was merged into " + _target_link(end, data.get("merged_into"))
        text += "; references to it lead there."
        if end and not end.get("complete", True):
            text += muted(" The merge chain is broken, so records naming this page are hidden.")
        out += _banner("info", "Merged.", text + _reason(data), colors)
    return out


def _listed(ranked: list[dict[str, Any]]) -> str:
    """The first few findings, each with a link to its line in the source."""
    listed = "".join(
        f"<br/>• {esc(d.get('message'))}"
        + (
            f' — <a href="{line_href(int(d["line"]))}">show in source (line {d["line"]})</a>'
            if isinstance(d.get("line"), int) and d["line"] > 0
            else ""
        )
        for d in ranked[:BANNER_DIAGNOSTICS]
    )
    more = len(ranked) - BANNER_DIAGNOSTICS
    if more > 0:
        listed += "<br/>" + muted(f'… and {more} more under <a href="#problems">Problems</a>')
    return listed


def problem_banners(view: dict[str, Any], colors: Colors) -> str:
    found = view.get("diagnostics") or []
    ranked = sorted(found, key=lambda d: {"error": 0, "warning": 1}.get(str(d.get("severity")), 2))
    listed = _listed(ranked)
    out = ""
    if view.get("status") == "note":
        # A note is not a defect; an error in it (a frontmatter that is not YAML) is.
        if any(d.get("severity") == "error" for d in found):
            errors = [d for d in ranked if d.get("severity") == "error"]
            out += _banner(
                "error",
                "Problem in this note.",
                "It is listed, linked and searchable; what it says below may be incomplete."
                + _listed(errors),
                colors,
            )
    elif view.get("status") != "record":
        out += _banner(
            "error",
            "Not a record.",
            "The app lists this file but cannot read it as a knowledge record." + listed,
            colors,
        )
    elif not view.get("valid"):
        out += _banner(
            "error",
            "Invalid record.",
            "It stays readable here but is left out of lookups and search until fixed." + listed,
            colors,
        )
    if view.get("duplicate"):
        out += _banner(
            "error",
            "Duplicate id.",
            "Another file uses the same id, so exact lookups find neither; open it by path.",
            colors,
        )
    if view.get("status") == "record" and not view.get("dependenciesAvailable", True):
        out += _banner(
            "warning",
            "Hidden.",
            "A record this one depends on is withdrawn, superseded or missing, so it is left out "
            "of active results.",
            colors,
        )
    return out


def render_gone_banner(path: str, moved_to: dict[str, Any] | None, colors: Colors) -> str:
    """The banner for a record whose file disappeared: deleted, or moved when its id lives on."""
    if moved_to and moved_to.get("path"):
        link = f'<a href="{esc(record_href(str(moved_to["path"])))}">{esc(moved_to["path"])}</a>'
        text = f"{esc(path)} is no longer there; the same record now lives at {link}. Below is what it said."
        return _banner("info", "Moved.", text, colors)
    text = f"{esc(path)} was deleted or renamed outside the app. Below is its last content."
    return _banner("error", "Deleted.", text, colors)


def render_document(
    view: dict[str, Any],
    context: dict[str, Any],
    colors: Colors,
    *,
    banners: str = "",
    notice: str | None = None,
    render_body: bool = True,
    now: datetime | None = None,
    hooks: Hooks | None = None,
) -> str:
    """The scrolling part of the Record pane. `banners` is trusted HTML put on top
    (the gone banner); `notice` is plain text telling why the body is not rendered;
    `hooks` lets the body show embeds and images inside the vault (`markdown.Hooks`)."""
    now = now or datetime.now(UTC)
    kind = view.get("kind")
    note = view.get("status") == "note"
    parts = [banners, lifecycle_banners(view, context, colors), problem_banners(view, colors)]
    if notice:
        parts.append(_banner("warning", "Not rendered.", esc(notice), colors))
    body = view.get("body") or ""
    properties: list[tuple[str, str]] = []
    if note:
        properties, body = split_properties(body)
        parts.append(note_properties(view.get("frontmatter"), properties))
    if render_body and body.strip():
        parts.append(
            render_markdown(
                body,
                int(view.get("bodyLine") or 1),
                view.get("references") or [],
                context.get("generatedLinks"),
                hooks=hooks,
            )
        )
    elif render_body and kind == "page":
        parts.append(f"<p>{muted('This page has no body text.')}</p>")
    if kind == "claim":
        parts.append(sections.claim_section(view, context, now))
    elif kind == "relationship":
        parts.append(sections.relationship_section(view, context, now))
    parts.append(sections.evidence_section(view, context, colors))
    if kind == "page":
        parts.append(sections.fields_section(view, context))
    if view.get("frontmatter") and not note:
        parts.append(sections.record_section(view, context))
        parts.append(sections.other_fields_section(view))
    parts.append(sections.diagnostics_section(view, colors))
    return (
        f"<html><head><style>{stylesheet(colors)}</style></head><body>"
        + "".join(p for p in parts if p)
        + "</body></html>"
    )


def note_properties(frontmatter: Any, logseq: list[tuple[str, str]]) -> str:
    """A note's frontmatter (Obsidian's properties) and Logseq `key:: value` lines, as one
    table above its text; a frontmatter that is not a mapping is shown as written."""
    rows: list[tuple[str, str]] = []
    if isinstance(frontmatter, dict):
        rows += [(str(k), value_html(v)) for k, v in frontmatter.items()]
    elif frontmatter not in (None, ""):
        rows.append(("(frontmatter)", value_html(frontmatter)))
    rows += [(k, esc(v)) for k, v in logseq]
    return section("Properties", field_rows(rows), "properties")


def kind_line(view: dict[str, Any], context: dict[str, Any]) -> str:
    """'Page · Person', 'Claim · decision', 'Relationship · Leads', 'Note', or 'Unrecognized file'."""
    if view.get("status") == "note":
        return "Note"
    if view.get("status") != "record":
        return "Unrecognized file"
    kind = str(view.get("kind") or "record").capitalize()
    definition = context.get("definition") or {}
    type_name = definition.get("label") or view.get("type")
    return f"{kind} · {type_name}" if type_name else kind


def render_header(view: dict[str, Any], context: dict[str, Any], colors: Colors) -> str:
    path = str(view.get("path") or "")
    title = view.get("title") or path.rsplit("/", 1)[-1] or "(untitled)"
    line = [esc(kind_line(view, context))]
    lifecycle = view.get("lifecycle")
    if lifecycle:
        line.append(badge(str(lifecycle), LIFECYCLE_TONES.get(str(lifecycle), "info"), colors))
    if view.get("status") == "record" and not view.get("valid"):
        line.append(badge("invalid", "error", colors))
    if view.get("revision") is not None:
        line.append(f"revision {esc(view['revision'])}")
    if view.get("writtenByAgentId"):
        line.append(f"Saved by <b>{esc(view['writtenByAgentId'])}</b>")
    ident = f"<code>{esc(view['id'])}</code> · " if view.get("id") else ""
    return (
        f'<div style="font-size: 15pt; font-weight: 600;">{esc(title)}</div>'
        f'<div style="color:{colors.muted};">{" &nbsp;·&nbsp; ".join(line)}</div>'
        f'<div style="color:{colors.muted};">{ident}{esc(path)}</div>'
    )
