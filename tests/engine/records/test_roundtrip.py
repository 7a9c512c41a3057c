"""The write path keeps what it does not change (spec: Records — unknown frontmatter
survives saves; ARCHITECTURE: Markdown is authoritative, never lose a byte)."""

from __future__ import annotations

from knowledge_desktop.engine.records import yaml12
from knowledge_desktop.engine.records.roundtrip import DELETE, update_frontmatter

ORIGINAL = """---
format: knowledge-record-v1
id: pg_ada   # stable forever
revision: 3
kind: page
title: "Ada Lovelace"
x_custom:
  nested: [1, 2]   # keep me
recorded_at: 2026-09-28T18:30:00.000Z
updated_at: 2026-09-28T18:30:00.000Z
scope: private
lifecycle: active
on: yes
---
Body with **bold**,  two spaces, and a trailing newline.

"""


def test_an_update_changes_only_the_named_keys() -> None:
    """Saves keep unknown keys, comments, order, quoting and the body byte for byte."""
    updated = update_frontmatter(ORIGINAL, {"revision": 4, "updated_at": "2026-10-01T00:00:00.000Z"})
    assert updated.endswith("---\nBody with **bold**,  two spaces, and a trailing newline.\n\n")
    assert "id: pg_ada   # stable forever" in updated
    assert "  nested: [1, 2]   # keep me" in updated
    assert 'title: "Ada Lovelace"' in updated
    assert "on: yes" in updated
    data = yaml12.load(updated.split("---\n")[1]).data
    assert data["revision"] == 4
    assert data["on"] == "yes"
    assert list(data) == list(yaml12.load(ORIGINAL.split("---\n")[1]).data)


def test_keys_can_be_added_and_removed() -> None:
    """Lifecycle writes add metadata keys and can remove one."""
    updated = update_frontmatter(
        ORIGINAL, {"lifecycle": "superseded", "superseded_by": "pg_b", "x_custom": DELETE}
    )
    data = yaml12.load(updated.split("---\n")[1]).data
    assert data["superseded_by"] == "pg_b"
    assert "x_custom" not in data


def test_crlf_files_stay_crlf() -> None:
    """A Windows file keeps its line ends."""
    crlf = ORIGINAL.replace("\n", "\r\n")
    updated = update_frontmatter(crlf, {"revision": 4})
    assert "\n" not in updated.replace("\r\n", "")


OBSIDIAN = """---
format: knowledge-record-v1
id: pg_ada
revision: 3   # bumped by the app
aliases:
- Ada
- Countess of Lovelace
tags: [ math,  poetry ]
fields: {status: active}
title: 'Ada''s page'
# a comment between keys
updated_at: "2026-09-28T18:30:00.000Z"
x_folded: >
  folded
  text
---
Body stays.
"""


def test_only_the_changed_keys_lines_differ() -> None:
    """Unindented sequences, spaced flow lists, comments between keys and folded scalars stay
    byte for byte; a changed key keeps its trailing comment and quote style (spec: Records)."""
    updated = update_frontmatter(OBSIDIAN, {"revision": 4, "updated_at": "2026-10-01T00:00:00.000Z"})
    before, after = OBSIDIAN.splitlines(), updated.splitlines()
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [
        ("revision: 3   # bumped by the app", "revision: 4   # bumped by the app"),
        ('updated_at: "2026-09-28T18:30:00.000Z"', 'updated_at: "2026-10-01T00:00:00.000Z"'),
    ]


def test_new_keys_go_after_their_anchor_and_values_read_back() -> None:
    """Keys the store adds land where asked, in block style, timestamps unquoted, text that
    needs it quoted, and every value reads back as given."""
    change = {"reason": "Wrong: see #12", "at": "2026-10-01T09:00:00.000Z", "actor": "ada"}
    updated = update_frontmatter(
        OBSIDIAN,
        {"lifecycle": "superseded", "lifecycle_change": change, "superseded_by": "pg_b", "x_folded": DELETE},
        after={"lifecycle": "title", "superseded_by": "lifecycle"},
    )
    lines = updated.splitlines()
    at = lines.index("lifecycle: superseded")
    assert lines[at - 1] == "title: 'Ada''s page'"
    assert lines[at + 1] == "superseded_by: pg_b"
    assert '  reason: "Wrong: see #12"' in lines
    assert "  at: 2026-10-01T09:00:00.000Z" in lines
    assert "x_folded" not in updated
    assert "folded" not in updated
    data = yaml12.load(updated.split("---\n")[1]).data
    assert data["lifecycle_change"] == change
    assert updated.endswith("---\nBody stays.\n")


def test_a_flow_list_stays_flow_and_strings_that_look_like_other_types_are_quoted() -> None:
    """A replaced flow sequence is written flow; '123', 'true' and 'null' stay strings."""
    updated = update_frontmatter(OBSIDIAN, {"tags": ["math", "a, b"], "x_n": "123", "x_t": "true"})
    assert 'tags: [math, "a, b"]' in updated
    data = yaml12.load(updated.split("---\n")[1]).data
    assert (data["x_n"], data["x_t"], data["tags"]) == ("123", "true", ["math", "a, b"])


def test_a_bom_and_the_body_are_kept_and_the_body_can_be_replaced() -> None:
    """The byte-order mark and the closing line stay; `replace_body` swaps only the body."""
    from knowledge_desktop.engine.records.roundtrip import replace_body

    text = "\ufeff" + OBSIDIAN
    assert update_frontmatter(text, {"revision": 9}).startswith("\ufeff---\n")
    swapped = replace_body(text, "New body.\n")
    assert swapped == text.replace("Body stays.\n", "New body.\n")


def test_unprintable_characters_past_the_bmp_are_written_as_yaml_escapes() -> None:
    """A character this Python's Unicode tables call unprintable (here U+18CD6, past the
    Basic Multilingual Plane), DEL and a line separator are escaped the YAML way; JSON's
    ASCII escaping wrote the first as a surrogate pair, which no YAML reader takes, and the
    write was refused."""
    title = "Me \U00018cd6 \x7f \u2028 😀"
    text = "---\nformat: knowledge-record-v1\ntitle: Old\n---\nBody\n"
    updated = update_frontmatter(text, {"title": title, "aliases": [title]})
    data = yaml12.load(updated.split("---\n")[1]).data
    assert data["title"] == title
    assert data["aliases"] == [title]
    assert "😀" in updated  # printable characters stay as they are
