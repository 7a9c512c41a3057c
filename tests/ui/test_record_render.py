"""The Record pane's HTML (knowledge_desktop/ui/render): links, escaping, sections, banners.

These run without a window: the renderer is plain Python over the answers of
`Vault.show()` and `Vault.record_context()`.
"""

from __future__ import annotations

import ast
import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import knowledge_desktop.ui.render as render_package
from knowledge_desktop.ui.render import Colors, parse_anchor, record_href, render_document, render_header
from knowledge_desktop.ui.render.links import external_href
from knowledge_desktop.ui.render.markdown import GENERATED_TIP, generated_targets, render_markdown
from knowledge_desktop.ui.render.values import instant_html, instant_text
from tests.vaultkit import VaultKit

COLORS = Colors()
NOW = datetime(2026, 10, 1, tzinfo=UTC)


def rendered(kit: VaultKit, key: str) -> tuple[str, str]:
    """(header, document) for one record of the kit's vault, as the pane would build them."""
    vault = kit.scan()
    view = vault.show(key)
    context = vault.record_context(view["path"])
    return render_header(view, context, COLORS), render_document(view, context, COLORS, now=NOW)


def hrefs(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]*)"', html)


def test_the_renderer_imports_no_qt() -> None:
    """The HTML is built on workers and tested headless, so the package stays Qt-free."""
    folder = Path(render_package.__file__).parent
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not any(name.startswith(("PySide6", "shiboken6")) for name in names), path.name


def test_wikilinks_show_their_status(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person", aliases=["Ada"])
    kit.page("private/meetings/a.md", "pg_m1", "Kickoff A", type="meeting", aliases=["Kickoff"])
    kit.page("private/meetings/b.md", "pg_m2", "Kickoff B", type="meeting", aliases=["Kickoff"])
    body = (
        "Met [[Ada]] and [[people/ada|the countess]].\n\n"
        "- Roadmap: [[Nowhere at all]]\n- Notes of the [[Kickoff]]\n- See [her](../people/ada.md)\n"
    )
    kit.page("private/notes/n.md", "pg_n", "Note", body, type="note")
    _, document = rendered(kit, "pg_n")
    assert hrefs(document).count(record_href("private/people/ada.md")) == 3
    assert ">the countess</a>" in document
    assert re.search(r'class="link-missing"[^>]*>Nowhere at all</span>', document)
    assert re.search(r'class="link-ambiguous"[^>]*>Kickoff</span>', document)
    assert "> missing</sup>" in document
    assert "> ambiguous</sup>" in document
    assert 'title="No record matches this link' in document


def test_links_are_paired_with_their_rows_by_line() -> None:
    """Two links with the same target on different lines keep their own statuses."""
    refs = [
        {"kind": "wiki", "target": "X", "line": 11, "status": "resolved", "id": "pg_x", "path": "p/x.md"},
        {"kind": "wiki", "target": "X", "line": 13, "status": "missing", "id": None, "path": None},
    ]
    html = render_markdown("[[X]]\n\n[[X]]\n", 11, refs)
    first, second = html.split("</p>")[:2]
    assert 'href="record:p/x.md"' in first
    assert "link-missing" in second


def test_raw_html_is_escaped_and_comments_are_hidden() -> None:
    body = (
        'Hello <b onclick="alert(1)">bold</b> <!-- secret note -->\n\n'
        "<script>alert('x')</script>\n\n<div>\n*raw block*\n</div>\n\n<!-- hidden block -->\n"
    )
    html = render_markdown(body, 1, [])
    assert "<script" not in html
    assert "<b onclick" not in html
    assert "&lt;b onclick=" in html
    assert "&lt;script&gt;" in html
    assert "&lt;div&gt;" in html
    assert "secret note" not in html
    assert "hidden block" not in html


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox)",
        "[x](file:///etc/passwd)",
        "[x](ftp://example.org/f)",
        "[x](custom-app:do-something)",
        "<javascript:alert(1)>",
        "[x](notes.txt)",
        "[x](#section)",
    ],
)
def test_unsafe_or_unknown_addresses_are_never_links(link: str) -> None:
    html = render_markdown(f"Click {link} now.\n", 1, [])
    assert hrefs(html) == []


def test_web_and_mail_links_open_outside_and_images_are_not_loaded() -> None:
    html = render_markdown(
        "See [site](https://example.org/a?b=1) or <mailto:ada@example.org>.\n\n![map](https://e.org/m.png)\n",
        1,
        [],
    )
    assert hrefs(html) == ["https://example.org/a?b=1", "mailto:ada@example.org"]
    assert "<img" not in html
    assert "[map]" in html


def test_anchors_are_parsed_and_anything_else_refused() -> None:
    assert parse_anchor(record_href("private/people/ada lovelace.md") + "#12").line == 12
    assert (
        parse_anchor(record_href("private/people/ada lovelace.md")).value == "private/people/ada lovelace.md"
    )
    assert parse_anchor("record:pg_ada").value == "pg_ada"
    assert parse_anchor("line:7").action == "line"
    assert parse_anchor("line:0").action == "refused"
    assert parse_anchor("#problems").action == "fragment"
    assert parse_anchor("https://example.org").action == "external"
    assert parse_anchor("java\tscript:alert(1)").action == "refused"
    assert parse_anchor("data:text/html,hi").action == "refused"
    assert external_href("https://example.org/\nx") is None


def test_page_fields_table_lists_typed_fields_and_unknown_keys(kit: VaultKit) -> None:
    kit.page(
        "private/people/ada.md",
        "pg_ada",
        "Ada",
        "Body.",
        type="person",
        aliases=["Countess"],
        tags=["math"],
        fields={"role": "Analyst", "shoe_size": 38},
        mood="<i>cheerful</i>",
    )
    header, document = rendered(kit, "pg_ada")
    assert "Page · Person" in header
    assert "Person fields" in document
    assert "Role</td><td>Analyst" in document
    assert "shoe_size" in document
    assert "not declared by the type" in document
    assert "Countess" in document
    assert "math" in document
    assert "Other fields" in document
    assert "mood" in document
    assert "&lt;i&gt;cheerful&lt;/i&gt;" in document


def test_claim_sections_show_kind_origin_evidence_entities_and_validity(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/sources/notes.md", "pg_src", "Stand-up notes", "line one\nline two\n", type="source")
    kit.claim(
        "private/claims/c.md",
        "cl_1",
        "Ada prefers tea",
        "Ada prefers tea to coffee.",
        claim_kind="preference",
        assertion_origin="user_belief",
        entities=["pg_ada", "pg_gone"],
        valid_from="2026-01-01T00:00:00Z",
        valid_until="2026-06-01T00:00:00Z",
        expires_at="2027-01-01T00:00:00Z",
        evidence=[
            {"source": "pg_src", "lines": [12, 13], "quote": "tea, please"},
            {"path": "people/missing.md"},
            {"url": "https://example.org/notes", "attribution": "Ada's blog"},
        ],
    )
    header, document = rendered(kit, "cl_1")
    assert "Claim" in header
    assert "Ada prefers tea to coffee." in document
    assert "Claim kind</td><td>preference" in document
    assert "user_belief" in document
    assert "the user&#x27;s belief" in document
    assert "Ada in the stand-up" in document
    assert ">Ada Lovelace</a>" in document
    assert "pg_gone" in document
    assert "not in this vault" in document
    # Midnight UTC reads as the day it names; the value as written stays in the tooltip.
    assert 'from <span title="2026-01-01T00:00:00Z">2026-01-01</span>' in document
    assert 'until <span title="2026-06-01T00:00:00Z">2026-06-01</span>' in document
    assert "T00:00:00Z</span>" not in document
    assert "ended" in document  # NOW is after valid_until
    assert 'Expires</td><td><span title="2027-01-01T00:00:00Z">2027-01-01</span>' in document
    assert "Evidence (3)" in document
    assert record_href("private/sources/notes.md") + "#12" in hrefs(document)
    assert ">Stand-up notes</a>" in document
    assert "verified" in document
    assert "unverified" in document
    assert "not checked offline" in document
    offline = document.split("not checked offline", 1)[0].rsplit("<span", 1)[1]
    assert COLORS.tint("neutral") in offline  # a grey fact, not the link colour on blue
    assert COLORS.link not in offline
    assert "“tea, please”" in document
    assert "https://example.org/notes" in hrefs(document)


def test_relationship_shows_both_endpoints_as_links(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    kit.page("private/projects/engine.md", "pg_eng", "Analytical Engine", type="project")
    kit.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_eng", "leads")
    header, document = rendered(kit, "rl_1")
    assert "Relationship · " in header
    links = hrefs(document)
    assert record_href("private/people/ada.md") in links
    assert record_href("private/projects/engine.md") in links
    assert ">Ada Lovelace</a>" in document
    assert ">Analytical Engine</a>" in document
    assert document.index("From</td>") < document.index("To</td>")


def test_superseded_withdrawn_and_merged_banners_point_on(kit: VaultKit) -> None:
    change = {"reason": "new data", "at": "2026-09-28T18:30:00.000Z", "actor": "agent:a", "request_id": "r1"}
    kit.claim("private/claims/new.md", "cl_new", "New claim", supersedes="cl_old")
    kit.claim(
        "private/claims/old.md",
        "cl_old",
        "Old claim",
        lifecycle="superseded",
        superseded_by="cl_new",
        lifecycle_change=change,
    )
    kit.claim("private/claims/w.md", "cl_w", "Retracted", lifecycle="withdrawn", lifecycle_change=change)
    kit.page("private/companies/a.md", "pg_a", "Acme", type="company", merged_from=["pg_b"])
    kit.page(
        "private/companies/b.md", "pg_b", "Acme Inc", type="company", lifecycle="merged", merged_into="pg_a"
    )

    header, document = rendered(kit, "cl_old")
    assert "superseded" in header
    assert "Superseded." in document
    banner = document.split("Superseded.", 1)[1].split("</table>", 1)[0]
    assert record_href("private/claims/new.md") in hrefs(banner)
    assert "new data" in banner

    _, document = rendered(kit, "cl_w")
    assert "Withdrawn." in document

    header, document = rendered(kit, "pg_b")
    assert "merged" in header
    banner = document.split("Merged.", 1)[1].split("</table>", 1)[0]
    assert record_href("private/companies/a.md") in hrefs(banner)


def test_invalid_records_list_problems_with_source_links(kit: VaultKit) -> None:
    kit.write("private/notes/bad.md", "---\ntitle: a: b\n---\nBody\n")
    header, document = rendered(kit, "private/notes/bad.md")
    # Frontmatter that is not YAML and names no record format: a note, with its error (issue 25).
    assert "Note" in header
    assert "Problem in this note." in document
    assert any(h.startswith("line:") for h in hrefs(document))
    assert "show in source" in document


def test_header_shows_saved_by_when_an_agent_wrote_the_revision() -> None:
    view: dict[str, Any] = {
        "status": "record",
        "valid": True,
        "kind": "page",
        "type": "person",
        "title": "Ada <script>",
        "id": "pg_ada",
        "path": "private/people/ada.md",
        "revision": 3,
        "lifecycle": "active",
        "writtenByAgentId": "agent:scribe",
    }
    header = render_header(view, {}, COLORS)
    assert "Saved by <b>agent:scribe</b>" in header
    assert "Ada &lt;script&gt;" in header
    assert "revision 3" in header
    assert "Saved by" not in render_header({**view, "writtenByAgentId": None}, {}, COLORS)


def test_dark_colours_change_the_stylesheet() -> None:
    view: dict[str, Any] = {"status": "record", "valid": True, "kind": "page", "body": "[[x]]"}
    light = render_document(view, {}, Colors())
    dark = render_document(view, {}, Colors(text="#dfe1e5", base="#1e1f22", dark=True))
    assert light != dark
    assert "#dfe1e5" in dark


@pytest.mark.parametrize(
    ("value", "zone", "shown"),
    [
        ("2026-08-01T00:00:00.000Z", ZoneInfo("Europe/Lisbon"), "2026-08-01"),
        ("2026-08-01", ZoneInfo("America/New_York"), "2026-08-01"),
        (date(2026, 8, 1), None, "2026-08-01"),
        ("2026-09-28T18:30:00.000Z", ZoneInfo("Europe/Berlin"), "2026-09-28 20:30 CEST"),
        ("2026-09-28T18:30:00Z", UTC, "2026-09-28 18:30 UTC"),
        ("2026-09-28T00:00:00+02:00", ZoneInfo("Europe/Berlin"), "2026-09-28 00:00 CEST"),
        ("2026-01-05T09:15:00+01:00", timezone(timedelta(hours=-5)), "2026-01-05 03:15 UTC-05:00"),
        ("not a time", UTC, None),
        (42, UTC, None),
    ],
)
def test_timestamps_read_as_dates_or_local_times(value: Any, zone: Any, shown: str | None) -> None:
    assert instant_text(value, zone) == shown


def test_a_readable_timestamp_keeps_the_written_value_in_its_tooltip() -> None:
    html = instant_html("2026-09-28T18:30:00.000Z", UTC)
    assert html == '<span title="2026-09-28T18:30:00.000Z">2026-09-28 18:30 UTC</span>'
    assert instant_html("<b>soon</b>") == "&lt;b&gt;soon&lt;/b&gt;"


def test_recorded_and_updated_are_readable(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada Lovelace", type="person")
    _, document = rendered(kit, "pg_ada")
    recorded = document.split("Recorded</td><td>", 1)[1].split("</td>", 1)[0]
    assert recorded.startswith('<span title="20')
    shown = recorded.split(">", 1)[1].split("<", 1)[0]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2} \S+)?", shown), shown


def test_links_in_a_generated_section_are_navigation_not_broken_links() -> None:
    body = (
        "Works with [[Ada]].\n\n"
        "<!-- backlinks:start -->\n## Backlinks (generated)\n\n"
        "- [[Ada]]\n- [[Kickoff notes]]\n- [[Gone page]]\n- [old](../notes/old.md)\n"
        "<!-- backlinks:end -->\n\nAfter [[Nowhere]].\n"
    )
    refs = [
        {"kind": "wiki", "target": "Ada", "line": 1, "status": "resolved", "path": "private/people/ada.md"},
        {"kind": "wiki", "target": "Nowhere", "line": 11, "status": "missing"},
    ]
    assert generated_targets(body) == [
        ("wiki", "Ada"),
        ("wiki", "Kickoff notes"),
        ("wiki", "Gone page"),
        ("markdown", "../notes/old.md"),
    ]
    html = render_markdown(body, 1, refs, {("wiki", "Kickoff notes"): "private/meetings/kickoff.md"})
    generated = html.split("Backlinks (generated)", 1)[1].split("After", 1)[0]
    # Resolved through the body's own rows, or through the caller's lookup of the target text.
    assert hrefs(generated) == [
        record_href("private/people/ada.md"),
        record_href("private/meetings/kickoff.md"),
    ]
    # Unresolved ones are muted text saying why, never a broken or unindexed link.
    assert f'<span class="muted" title="{GENERATED_TIP}">Gone page</span>' in generated
    assert f'<span class="muted" title="{GENERATED_TIP}">old</span>' in generated
    assert "link-" not in generated
    assert "not indexed" not in generated
    # Outside the section, links are judged as before.
    assert "link-missing" in html.split("After", 1)[1]
