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
