"""Diagnostics reports a person can read and a CI job can parse.

All four formats carry the same content: every diagnostic (code, severity,
path, line, record id, message) and the counts by severity and by code.
The HTML report is one self-contained file (inline CSS, no scripts, no
remote resources) and escapes every piece of vault content, so a hostile
file name or message cannot inject markup. In the HTML, CSV and Markdown
reports every piece of vault text is also shown on one line with its control
characters escaped (`visible_text.one_line`: an ESC in a file name is `\x1b`,
a newline `\n`), so a report printed to a terminal or opened in a viewer runs
no terminal command and splits no row; the JSON report keeps the exact text.

Notes (issue 25 §4) each have one info diagnostic, `plain-note`; a vault of
thousands of notes would bury the real problems under them, so every format
groups them: one row "N plain notes" in the tables (the HTML report lists
their paths in that row's cell, one line of small text), and in JSON a `groups` entry with the
count and the paths instead of one item each. The counts still include them.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from knowledge_desktop.engine.diagnostics import CODES, Diagnostic, Severity
from knowledge_desktop.engine.visible_text import json_text, one_line

FORMATS = ("json", "csv", "md", "html")
FIELDS = ("code", "severity", "path", "line", "recordId", "message")
PLAIN_NOTE = "plain-note"
ADOPT_HINT = "not records; `knowledge adopt` or File › Adopt Notes… makes them records"


def split_notes(items: Sequence[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """The problems, and the `plain-note` diagnostics that are listed as one group."""
    notes = [d for d in items if d.code == PLAIN_NOTE]
    return ([d for d in items if d.code != PLAIN_NOTE] if notes else list(items)), notes


def group_message(count: int) -> str:
    return f"{count:,} plain note{'' if count == 1 else 's'} — {ADOPT_HINT}"


def counts(items: Sequence[Diagnostic]) -> dict[str, Any]:
    by_severity = {s.value: 0 for s in Severity}
    for item in items:
        by_severity[item.severity.value] += 1
    return {
        "total": len(items),
        "bySeverity": by_severity,
        "byCode": dict(sorted(Counter(d.code for d in items).items())),
    }


def render(
    items: Sequence[Diagnostic],
    fmt: str,
    *,
    vault: str = "",
    generated_at: str = "",
    merge_candidates: Sequence[dict[str, Any]] | None = None,
) -> str:
    """`merge_candidates` (spec: corrections-and-merges, Merge duplicate pages) go into the
    JSON report under `mergeCandidates`."""
    if fmt == "json":
        return as_json(items, vault=vault, generated_at=generated_at, merge_candidates=merge_candidates)
    if fmt == "csv":
        return as_csv(items)
    if fmt == "md":
        return as_markdown(items, vault=vault, generated_at=generated_at)
    if fmt == "html":
        return as_html(items, vault=vault, generated_at=generated_at)
    raise ValueError(f"unknown report format {fmt!r}; use one of {', '.join(FORMATS)}")


def as_json(
    items: Sequence[Diagnostic],
    *,
    vault: str = "",
    generated_at: str = "",
    merge_candidates: Sequence[dict[str, Any]] | None = None,
) -> str:
    problems, notes = split_notes(items)
    payload: dict[str, Any] = {"items": [d.as_json() for d in problems], "counts": counts(items)}
    if notes:
        payload["groups"] = [
            {
                "code": PLAIN_NOTE,
                "severity": notes[0].severity.value,
                "count": len(notes),
                "message": group_message(len(notes)),
                "paths": [d.path for d in notes],
            }
        ]
    if merge_candidates is not None:
        payload["mergeCandidates"] = list(merge_candidates)
    if vault:
        payload["vault"] = vault
    if generated_at:
        payload["generatedAt"] = generated_at
    return json_text(payload) + "\n"


def as_csv(items: Sequence[Diagnostic]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    problems, notes = split_notes(items)
    for d in problems:
        row = d.as_json()
        writer.writerow(["" if row[f] is None else _csv_safe(one_line(row[f])) for f in FIELDS])
    if notes:
        writer.writerow([PLAIN_NOTE, notes[0].severity.value, "", "", "", group_message(len(notes))])
    return out.getvalue()


def _csv_safe(value: str) -> str:
    """Keep spreadsheet programs from running a cell as a formula (a leading tab or CR is
    already escaped by `one_line`)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


_MD_MARKUP = re.compile(r"([\\`*_\[\]<>!&|~$])")
"""What can start inline Markdown, HTML, an entity or a table cell's end: escaped with a
backslash, so `![x](https://…)` in a message is text, not an image a viewer fetches."""


def _md_cell(value: object) -> str:
    """Vault text as literal Markdown text on one line (controls escaped: `one_line`)."""
    return _MD_MARKUP.sub(r"\\\1", one_line("" if value is None else value))


def as_markdown(items: Sequence[Diagnostic], *, vault: str = "", generated_at: str = "") -> str:
    c = counts(items)
    lines = ["# Diagnostics report", ""]
    if vault:
        lines.append(f"Vault: {_md_cell(vault)}  ")
    if generated_at:
        lines.append(f"Generated: {generated_at}  ")
    sev = c["bySeverity"]
    lines += [
        f"Total: **{c['total']}** — {sev['error']} errors, {sev['warning']} warnings, {sev['info']} info",
        "",
    ]
    if c["byCode"]:
        lines += ["| Code | Count | Meaning |", "| --- | ---: | --- |"]
        lines += [
            f"| `{code}` | {n} | {_md_cell(CODES.get(code, (None, ''))[1])} |"
            for code, n in c["byCode"].items()
        ]
        lines.append("")
    lines += [
        "| Severity | Code | Path | Line | Record | Message |",
        "| --- | --- | --- | ---: | --- | --- |",
    ]
    problems, notes = split_notes(items)
    for d in problems:
        lines.append(
            f"| {d.severity.value} | `{d.code}` | {_md_cell(d.path)} | "
            f"{'' if d.line is None else d.line} | {_md_cell(d.record_id)} | "
            f"{_md_cell(d.message)} |"
        )
    if notes:
        lines.append(
            f"| {notes[0].severity.value} | `{PLAIN_NOTE}` |  |  |  | {_md_cell(group_message(len(notes)))} |"
        )
    return "\n".join(lines) + "\n"


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem;color:#1d1d1f}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.5rem 0 .25rem}
.meta{color:#555;margin-bottom:1rem}
.pill{display:inline-block;padding:.15rem .6rem;border-radius:1rem;margin-right:.5rem;font-weight:600}
.error{background:#fde8e8;color:#9b1c1c}.warning{background:#fdf6b2;color:#723b13}
.info{background:#e1effe;color:#1e429f}
table{border-collapse:collapse;width:100%;margin-top:.5rem}
th,td{border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}
th{background:#f3f4f6;position:sticky;top:0}td.num{text-align:right;white-space:nowrap}
td.empty{color:#555;font-style:italic}
div.paths{color:#555;font-size:.85em;margin-top:.25rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em}
@page{margin:1.5cm}
@media print{body{margin:0;font-size:10pt;color:#000}th{position:static}
thead{display:table-header-group}tr{break-inside:avoid}h2{break-after:avoid}
.pill,th{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
@media screen and (prefers-color-scheme:dark){body{background:#111;color:#eee}th{background:#222}
th,td{border-color:#333}.meta,td.empty{color:#aaa}}
"""


_EMPTY_ROW = "<tr><td class='empty' colspan='{span}'>No problems found.</td></tr>"


def as_html(items: Sequence[Diagnostic], *, vault: str = "", generated_at: str = "") -> str:
    def e(text: object) -> str:
        return html.escape(one_line(text))

    c = counts(items)
    sev = c["bySeverity"]
    problems, notes = split_notes(items)
    rows = "\n".join(
        f"<tr><td><span class='pill {d.severity.value}'>{e(d.severity.value)}</span></td>"
        f"<td><code>{e(d.code)}</code></td><td><code>{e(d.path)}</code></td>"
        f"<td class='num'>{'' if d.line is None else d.line}</td>"
        f"<td><code>{e(d.record_id or '')}</code></td><td>{e(d.message)}</td></tr>"
        for d in problems
    )
    if notes:
        paths = " · ".join(f"<code>{e(d.path)}</code>" for d in notes)
        rows += (
            f"\n<tr><td><span class='pill info'>info</span></td><td><code>{PLAIN_NOTE}</code></td>"
            f"<td colspan='4'>{e(group_message(len(notes)))}<div class='paths'>{paths}</div></td></tr>"
        )
    code_rows = "\n".join(
        f"<tr><td><code>{e(code)}</code></td><td class='num'>{n}</td>"
        f"<td>{e(CODES.get(code, (None, ''))[1])}</td></tr>"
        for code, n in c["byCode"].items()
    )
    meta = " · ".join(
        part
        for part in (
            f"Vault: <code>{e(vault)}</code>" if vault else "",
            f"Generated {e(generated_at)}" if generated_at else "",
        )
        if part
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Diagnostics report</title><style>{_CSS}</style></head>
<body>
<h1>Diagnostics report</h1>
<div class="meta">{meta}</div>
<p><span class="pill error">{sev["error"]} errors</span>
<span class="pill warning">{sev["warning"]} warnings</span>
<span class="pill info">{sev["info"]} info</span> {c["total"]} in all</p>
<h2>By code</h2>
<table><thead><tr><th>Code</th><th>Count</th><th>Meaning</th></tr></thead><tbody>
{code_rows or _EMPTY_ROW.format(span=3)}
</tbody></table>
<h2>All diagnostics</h2>
<table><thead><tr><th>Severity</th><th>Code</th><th>Path</th><th>Line</th><th>Record</th><th>Message</th></tr></thead><tbody>
{rows or _EMPTY_ROW.format(span=6)}
</tbody></table>
</body></html>
"""
