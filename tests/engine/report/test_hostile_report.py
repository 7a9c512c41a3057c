"""Diagnostics reports of a hostile vault: vault text in every format stays text (issue 13 §2).

A report is opened in a browser, a spreadsheet, a Markdown viewer or a CI parser; none of
them may run, fetch or compute anything a vault file wrote into it.
"""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from knowledge_desktop.cli import main
from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.report import diagnostics_report
from tests.vaultkit import HOSTILE_NOTE, VaultKit, hostile_vault

HOSTILE = [
    "<script>alert(1)</script>",
    "\"'><img src=x onerror=alert(1)>",
    "![pixel](https://example.com/t.png) [click](javascript:alert(1)) <https://example.com>",
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "a | b `c` *d* _e_ &amp; ~f~ $g$",
]


def crafted() -> list[dg.Diagnostic]:
    """Diagnostics carrying hostile text in every field a vault can reach."""
    return [
        dg.make(
            "link-missing", f"private/{text}.md", f"link {text} matches no record", line=3, record_id=text
        )
        for text in HOSTILE
    ]


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def markup(text: str) -> _Markup:
    parsed = _Markup()
    parsed.feed(text)
    parsed.close()
    return parsed


REPORT_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "div", "p", "span"}
REPORT_TAGS |= {"table", "thead", "tbody", "tr", "th", "td", "code"}


def test_the_html_report_keeps_hostile_text_out_of_tags_and_attributes() -> None:
    """HTML report: markup in paths, ids and messages (in text and quote-breaking forms)
    adds no tag, attribute, script or remote address; each comes back as the same text."""
    report = diagnostics_report.as_html(crafted(), vault="/v/<script>x</script>", generated_at="now")
    parsed = markup(report)
    assert parsed.tags <= REPORT_TAGS
    names = {name for name, _ in parsed.attrs}
    assert names <= {"lang", "charset", "http-equiv", "content", "class", "colspan"}
    assert not any(value and "alert" in value for _, value in parsed.attrs)
    text = "".join(parsed.text)
    for hostile in HOSTILE:
        assert f"link {hostile} matches no record" in text
    assert "/v/<script>x</script>" in text
    assert "default-src 'none'" in report  # the page may fetch nothing even if fooled


def test_the_json_report_round_trips_hostile_text() -> None:
    """JSON report: valid JSON whose values are exactly the diagnostics' text."""
    items = json.loads(diagnostics_report.as_json(crafted()))["items"]
    assert [i["recordId"] for i in items] == HOSTILE


def test_csv_cells_that_a_spreadsheet_would_compute_are_neutralised() -> None:
    """CSV report: a cell starting with = + - @ gets a leading apostrophe, so a spreadsheet
    shows it instead of computing it; other cells are unchanged (docs/decisions.md)."""
    rows = list(csv.DictReader(io.StringIO(diagnostics_report.as_csv(crafted()))))
    for row, hostile in zip(rows, HOSTILE, strict=True):
        expected = "'" + hostile if hostile[0] in "=+-@" else hostile
        assert row["recordId"] == expected
        assert row["path"] == f"private/{hostile}.md"
    assert all(not cell or cell[0] not in "=+-@" for row in rows for cell in row.values())


def test_the_markdown_report_renders_hostile_text_as_text() -> None:
    """Markdown report: rendered as GitHub would (tables, raw HTML allowed), vault text
    makes no image, link, HTML tag or extra table cell; it reads as written."""
    report = diagnostics_report.as_markdown(crafted(), vault="/v/![x](https://e.org/x.png)")
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    html = md.render(report)
    parsed = markup(html)
    assert parsed.tags <= {"h1", "p", "strong", "code", "table", "thead", "tbody", "tr", "th", "td", "br"}
    assert not parsed.attrs or {n for n, _ in parsed.attrs} <= {"style"}
    text = "".join(parsed.text)
    for hostile in HOSTILE:
        assert f"link {hostile} matches no record" in text
    assert "/v/![x](https://e.org/x.png)" in text
    rows = [line for line in report.splitlines() if line.startswith("| warning")]
    assert all(line.count(" | ") == 5 for line in rows)  # six cells: no `|` split a cell


@pytest.mark.parametrize("fmt", diagnostics_report.FORMATS)
def test_reports_of_a_hostile_vault_carry_its_markup_as_text(
    kit: VaultKit, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    """Every report format of the hostile vault (a file named `<script>x.md`, a title,
    alias and body with markup, links to `<img>`) is written outside the vault and keeps
    each piece of markup as text."""
    hostile_vault(kit, tmp_path / "outside")
    target = tmp_path / "reports" / f"report.{fmt}"
    target.parent.mkdir()
    assert main(["diagnostics", str(kit.root), "--format", fmt, "-o", str(target)]) == 0
    capsys.readouterr()
    text = target.read_text(encoding="utf-8")
    if fmt == "html":
        parsed = markup(text)
        assert parsed.tags <= REPORT_TAGS
        assert HOSTILE_NOTE in "".join(parsed.text)
    elif fmt == "json":
        assert HOSTILE_NOTE in {i["path"] for i in json.loads(text)["items"]}
    elif fmt == "csv":
        assert HOSTILE_NOTE in {r["path"] for r in csv.DictReader(io.StringIO(text))}
    else:
        html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
        assert "<script" not in html
        assert "<img" not in html
        assert HOSTILE_NOTE in "".join(markup(html).text)


CONTROL = "red \x1b[31mALERT\x1b[0m\nsecond\x07\r\x9b2J\u202e"


@pytest.mark.parametrize("fmt", diagnostics_report.FORMATS)
def test_reports_carry_no_raw_control_character(fmt: str) -> None:
    """Every report format: ESC, BEL, CR, a newline, C1 and a bidi override in a file name,
    a record id or a message are written as visible escapes (`\\x1b`), never raw, so the
    report neither drives a terminal it is printed to nor splits a row; JSON reads back
    the exact text."""
    items = [
        dg.make("link-missing", f"private/esc{CONTROL}.md", f"link {CONTROL}", line=3, record_id=CONTROL)
    ]
    report = diagnostics_report.render(items, fmt, vault=f"/v/{CONTROL}", generated_at="now")
    assert not any(c in report for c in ("\x1b", "\x07", "\r", "\x9b", "\u202e"))
    if fmt == "json":
        assert json.loads(report)["items"][0]["recordId"] == CONTROL
        return
    shown = report
    if fmt == "md":  # the escapes are Markdown-escaped in turn: read them as a viewer shows them
        shown = "".join(markup(MarkdownIt("commonmark").enable("table").render(report)).text)
    assert "red \\x1b[31mALERT\\x1b[0m\\nsecond\\x07\\r\\x9b2J\\u202e" in shown
    if fmt == "csv":
        assert len(report.splitlines()) == 2
    elif fmt == "md":
        assert len([line for line in report.splitlines() if line.startswith("| warning")]) == 1
