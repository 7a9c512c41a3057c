"""Plain Markdown notes (issue 25 §1, §2, §7): what parsing reads of a note."""

from __future__ import annotations

import pytest

from knowledge_desktop.engine.records.parse import ParsedFile, parse_bytes
from knowledge_desktop.engine.store import codec


def note(text: str, path: str = "notes/My Note.md", scope: str | None = "notes") -> ParsedFile:
    return parse_bytes(path, scope, text.encode())


def codes(parsed: ParsedFile) -> list[str]:
    return [d.code for d in parsed.diagnostics]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  \n\n",
        "# Heading\n\nText.\n",
        "---\ntitle: T\ntags: [a]\n---\nText\n",
        "---\nformat: essay\n---\n",
    ],
)
def test_markdown_that_does_not_try_to_be_a_record_is_a_note(text: str) -> None:
    """No frontmatter, frontmatter without the record format, or nothing: a note, with its
    one info finding and no warning."""
    parsed = note(text)
    assert parsed.status == "note"
    assert codes(parsed) == ["plain-note"]
    assert parsed.note is not None


def test_a_root_note_is_a_note_too() -> None:
    parsed = note("Text\n", path="Welcome.md", scope=None)
    assert parsed.status == "note"
    assert codes(parsed) == ["plain-note"]


def test_broken_yaml_in_a_note_keeps_its_error_and_the_body_reads() -> None:
    """Obsidian vaults hold `aliases: [- @name]`: the YAML error stays an error, the file is
    still a note whose body is read (title from the file name, links found)."""
    parsed = note("---\naliases: [- @name]\n---\nSee [[Other]].\n")
    assert parsed.status == "note"
    assert codes(parsed) == ["yaml-syntax", "plain-note"]
    assert parsed.diagnostics[0].line == 2
    assert parsed.note is not None
    assert parsed.note.title == "My Note"
    assert [(link.target, parsed.body_line + link.line) for link in parsed.links] == [("Other", 4)]


def test_a_file_declaring_the_format_with_broken_yaml_stays_a_broken_record() -> None:
    parsed = note("---\nformat: knowledge-record-v1\nid: [\n---\nBody\n")
    assert parsed.status == "unrecognized"
    assert codes(parsed) == ["yaml-syntax"]


def test_title_aliases_and_tags_from_frontmatter_and_inline_tags() -> None:
    parsed = note(
        "---\ntitle: Shown Title\naliases: [One, Two]\ntags: [alpha, '#beta']\n---\n"
        "# Heading #notatag\n\nText #gamma and #nested/tag, not #123, not a#b.\n"
        "`#incode` and\n```\n#infence\n```\n"
    )
    meta = parsed.note
    assert meta is not None
    assert meta.title == "Shown Title"
    assert meta.aliases == ("One", "Two")
    assert meta.tags == ("alpha", "beta", "gamma", "nested/tag")
    assert meta.headings == ("Heading #notatag",)


def test_a_single_alias_string_and_tag_string() -> None:
    meta = note("---\nalias: Only One, Still One\ntags: a, b\n---\n").note
    assert meta is not None
    assert meta.aliases == ("Only One, Still One",)
    assert meta.tags == ("a", "b")


@pytest.mark.parametrize(
    ("path", "frontmatter", "date"),
    [
        ("daily/2024-03-05.md", "", "2024-03-05"),
        ("journals/2024_03_05.md", "", "2024-03-05"),
        ("notes/2024_03_05.md", "", None),
        ("daily/2024-02-30.md", "", None),
        ("notes/x.md", "date: 2023-01-02\n", "2023-01-02"),
        ("notes/x.md", "created: 2023-01-02T10:11\n", "2023-01-02"),
        ("notes/x.md", "created: soon\n", None),
    ],
)
def test_dates_of_daily_notes_journals_and_frontmatter(path: str, frontmatter: str, date: str | None) -> None:
    text = f"---\n{frontmatter}---\nText\n" if frontmatter else "Text\n"
    meta = note(text, path=path, scope=path.split("/", 1)[0]).note
    assert meta is not None
    assert meta.date == date


def test_logseq_page_properties() -> None:
    text = "title:: Logseq Page\nalias:: LP, [[Other name]]\ntags:: work, [[idea]]\n\n- a block #x\n"
    meta = note(text).note
    assert meta is not None
    assert meta.title == "Logseq Page"
    assert meta.aliases == ("LP", "Other name")
    assert meta.tags == ("work", "idea", "x")
    assert meta.properties == {
        "title": "Logseq Page",
        "alias": "LP, [[Other name]]",
        "tags": "work, [[idea]]",
    }


def test_every_obsidian_link_form_with_its_line() -> None:
    body = (
        "[[Plain]] [[folder/Name]] [[Name|shown text]]\n"
        "[[Name#Heading]] [[Name#^block-id]] ![[Embedded]] ![[Note#Part]]\n"
        "![[image.png]] ![alt](pics/cat%20one.png) [text](relative%20path.md) [pdf](files/a.pdf)\n"
        "[web](https://example.org) [here](#local) `[[code]]`\n"
        "```\n[[fenced]]\n```\n%% [[hidden]] %% <!-- [[html comment]] -->\n"
        "last ^block-id\n"
    )
    parsed = note(body)
    got = [(link.kind, link.target, link.label, link.line) for link in parsed.links]
    assert got == [
        ("wiki", "Plain", None, 0),
        ("wiki", "folder/Name", None, 0),
        ("wiki", "Name", "shown text", 0),
        ("wiki", "Name#Heading", None, 1),
        ("wiki", "Name#^block-id", None, 1),
        ("embed", "Embedded", None, 1),
        ("embed", "Note#Part", None, 1),
        ("embed", "image.png", None, 2),
        ("image", "pics/cat one.png", "alt", 2),
        ("markdown", "relative path.md", "text", 2),
        ("markdown", "files/a.pdf", "pdf", 2),
    ]
    assert parsed.note is not None
    assert parsed.note.block_ids == ("block-id",)


def test_the_parse_cache_keeps_a_note_whole() -> None:
    parsed = note("---\ntitle: T\n---\n# H\n[[A#B|c]] ![[i.png]] #t ^b1\n", path="journals/2024_01_02.md")
    back = codec.decode(parsed.path, parsed.scope, parsed.sha256, parsed.size, codec.encode(parsed))
    assert back.status == "note"
    assert back.note == parsed.note
    assert back.links == parsed.links
    assert back.body_line == parsed.body_line
    assert codes(back) == codes(parsed)


def test_record_links_are_unchanged_by_the_note_forms() -> None:
    """A record's body keeps its own link rules: embeds and images are not its links."""
    from tests.vaultkit import envelope, record_text

    text = record_text(envelope("pg_1", "page", "Ada"), "[[A]] ![[B]] ![i](c.md) [d](e.md)\n")
    parsed = parse_bytes("private/x.md", "private", text.encode())
    assert parsed.status == "record"
    assert [(link.kind, link.target) for link in parsed.links] == [("wiki", "A"), ("markdown", "e.md")]
