"""Obsidian-style Markdown in the Record pane's HTML (issue 25 §1, §2): shown text, heading and
block anchors, embeds through a callback, images inside the vault, inline tags, Logseq
properties and a note's frontmatter as properties.

Pure rendering: the engine's reference rows are written here, and the embed and image
callbacks are fakes, so these run without a vault and without a window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from knowledge_desktop.ui.render import Colors, parse_anchor, render_document, render_header
from knowledge_desktop.ui.render.links import tag_href
from knowledge_desktop.ui.render.markdown import MAX_EMBED_DEPTH, Embedded, Hooks, render_markdown
from knowledge_desktop.ui.render.note_text import excerpt, heading_anchor, split_properties

COLORS = Colors()


def ref(
    target: str, line: int, path: str | None, *, embed: bool = False, status: str = "resolved"
) -> dict[str, Any]:
    """A row of `Vault.show(note)["references"]` as the contract names it (no `kind`)."""
    return {
        "target": target,
        "status": status if path else "missing",
        "path": path,
        "line": line,
        "embed": embed,
    }


def hrefs(html: str) -> list[str]:
    return re.findall(r'<a (?:class="tag" )?href="([^"]*)"', html)


class FakeVault:
    """The embed and image callbacks the pane passes, over a dict of notes and image paths."""

    def __init__(self, notes: dict[str, Embedded], images: Sequence[str] = ()) -> None:
        self.notes = notes
        self.images = set(images)
        self.asked: list[str] = []
        self.asked_images: list[list[str]] = []

    def embed(self, path: str) -> Embedded | None:
        self.asked.append(path)
        return self.notes.get(path)

    def image(self, paths: Sequence[str]) -> str | None:
        self.asked_images.append(list(paths))
        return next((f"vault-image:{p}" for p in paths if p in self.images), None)

    def hooks(self, folder: str = "", seen: frozenset[str] = frozenset()) -> Hooks:
        return Hooks(embed=self.embed, image=self.image, folder=folder, seen=seen)


def test_shown_text_and_heading_and_block_links() -> None:
    body = "Read [[Ada Lovelace|the countess]], [[Ada Lovelace#Early life]] and [[Ada Lovelace#^q1]].\n"
    refs = [ref("Ada Lovelace", 1, "people/Ada Lovelace.md")] * 3
    html = render_markdown(body, 1, refs)
    assert ">the countess</a>" in html
    assert "[[" not in html
    assert "|" not in html
    assert hrefs(html) == [
        "record:people/Ada%20Lovelace.md",
        "record:people/Ada%20Lovelace.md#h-early-life",
        "record:people/Ada%20Lovelace.md#b-q1",
    ]
    anchor = parse_anchor("record:people/Ada%20Lovelace.md#h-early-life")
    assert (anchor.action, anchor.value, anchor.fragment, anchor.line) == (
        "record",
        "people/Ada Lovelace.md",
        "h-early-life",
        0,
    )
    assert parse_anchor("record:x.md#12").line == 12  # the line suffix keeps its meaning


def test_headings_and_block_ids_carry_the_anchors_links_name() -> None:
    body = "# Early Life!\n\nA quote worth linking. ^q1\n\n- a list item ^item-2\n\nSee [[#Early life]].\n"
    html = render_markdown(body, 1, [])
    assert f'<h1 id="{heading_anchor("Early life")}">' in html
    assert '<a name="b-q1"></a>A quote worth linking.</p>' in html
    assert '<a name="b-item-2"></a>' in html
    assert "^q1" not in html
    assert "^item-2" not in html
    assert '<a href="#h-early-life">Early life</a>' in html


def test_embeds_show_the_note_or_its_heading_inline() -> None:
    other = Embedded(
        "notes/Other.md",
        "Other",
        "Intro text.\n\n## Part A\nInside A.\n### Deeper\nStill A.\n## Part B\nOnly B.\n",
    )
    fake = FakeVault({"notes/Other.md": other})
    body = "![[Other]]\n\n![[Other#Part A]]\n"
    refs = [ref("Other", 1, "notes/Other.md", embed=True), ref("Other", 3, "notes/Other.md", embed=True)]
    html = render_markdown(body, 1, refs, hooks=fake.hooks(seen=frozenset({"me.md"})))
    whole, part = html.split('<table class="embed"')[1:]
    assert "Intro text." in whole
    assert "Only B." in whole
    assert "Inside A." in part
    assert "Still A." in part
    assert "Intro text." not in part
    assert "Only B." not in part
    assert "!" not in html.replace("<!", "")  # the `!` belongs to the embed
    assert fake.asked == ["notes/Other.md", "notes/Other.md"]
    assert ' id="' not in html  # an embedded heading does not answer this file's links


def test_embeds_stop_at_cycles_and_depth_and_say_when_missing() -> None:
    loop = Embedded("a.md", "A", "A embeds ![[B]]\n", 1, [ref("B", 1, "b.md", embed=True)])
    back = Embedded("b.md", "B", "B embeds ![[A]]\n", 1, [ref("A", 1, "a.md", embed=True)])
    fake = FakeVault({"a.md": loop, "b.md": back})
    html = render_markdown(
        "![[B]]\n", 1, [ref("B", 1, "b.md", embed=True)], hooks=fake.hooks(seen=frozenset({"a.md"}))
    )
    assert fake.asked == ["b.md"]  # a.md is the file shown: never fetched again
    assert "embeds itself" in html

    chain = {
        f"n{i}.md": Embedded(
            f"n{i}.md",
            f"N{i}",
            f"level {i} ![[N{i + 1}]]\n",
            1,
            [ref(f"N{i + 1}", 1, f"n{i + 1}.md", embed=True)],
        )
        for i in range(10)
    }
    deep = FakeVault(chain)
    html = render_markdown("![[N0]]\n", 1, [ref("N0", 1, "n0.md", embed=True)], hooks=deep.hooks())
    assert len(deep.asked) == MAX_EMBED_DEPTH
    assert "embedded too deep" in html

    html = render_markdown("![[Nowhere]]\n", 1, [ref("Nowhere", 1, None, embed=True)], hooks=deep.hooks())
    assert 'class="embed-missing"' in html
    assert "Nowhere not found" in html


def test_images_inside_the_vault_only() -> None:
    fake = FakeVault({}, images=["notes/pics/a.png", "attachments/b.png"])
    body = (
        "![a](pics/a.png) ![[b.png]] ![remote](https://example.com/x.png) "
        "![up](../../outside/x.png) ![abs](/etc/x.png) ![f](file:///etc/x.png)\n"
    )
    refs = [ref("b.png", 1, "attachments/b.png", embed=True)]
    html = render_markdown(body, 1, refs, hooks=fake.hooks(folder="notes"))
    assert re.findall(r'<img src="([^"]*)"', html) == [
        "vault-image:notes/pics/a.png",
        "vault-image:attachments/b.png",
    ]
    # Addresses with a scheme, absolute paths and paths leaving the vault never reach the reader.
    asked = [p for paths in fake.asked_images for p in paths]
    assert not any(p.startswith(("..", "/")) or ":" in p for p in asked)
    assert "[remote]" in html
    assert "[up]" in html
    assert "[abs]" in html
    assert "[f]" in html
    # Without hooks (the old callers), no image at all.
    assert "<img" not in render_markdown(body, 1, refs)


def test_inline_tags_are_tag_links_except_in_code_and_headings() -> None:
    body = (
        "# Heading #nope\n\nWork on #project/alpha and #idea, not `#code` nor #12 nor a#b.\n\n    #indented\n"
    )
    html = render_markdown(body, 1, [])
    assert [h for h in hrefs(html) if h.startswith("tag:")] == [tag_href("project/alpha"), tag_href("idea")]
    assert "Heading #nope</h1>" in html
    anchor = parse_anchor(tag_href("project/alpha"))
    assert (anchor.action, anchor.value) == ("tag", "project/alpha")
    assert parse_anchor("tag:javascript:alert(1)").action == "refused"


def test_logseq_properties_and_frontmatter_are_shown_as_properties() -> None:
    body = "type:: book\nauthor:: [[Ada]]\n\n- First block #read\n"
    props, rest = split_properties(body)
    assert props == [("type", "book"), ("author", "[[Ada]]")]
    assert rest.split("\n")[3] == "- First block #read"  # lines keep their numbers
    view = {
        "kind": "note",
        "status": "note",
        "id": None,
        "title": "Reading list",
        "path": "pages/Reading list.md",
        "frontmatter": {"aliases": ["Books"], "rating": 5},
        "body": body,
        "bodyLine": 5,
        "references": [],
        "diagnostics": [{"severity": "info", "code": "plain-note", "message": "A note", "line": None}],
    }
    document = render_document(view, {}, COLORS)
    props_html = document.split('id="properties"', 1)[1].split("</table>", 1)[0]
    for text in ("aliases", "Books", "rating", "5", "type", "book", "author"):
        assert text in props_html
    assert "type:: book" not in document
    assert "Not a record." not in document  # a note is not a defect
    assert "Other fields" not in document
    assert ">Record<" not in document
    header = render_header(view, {}, COLORS)
    assert "Note" in header
    assert "Reading list" in header
    assert "Unrecognized" not in header


def test_excerpt_finds_a_block_paragraph() -> None:
    body = "one\ntwo ^b1\n\nthree\n"
    assert excerpt(body, "^b1") == ("one\ntwo ^b1", 0)
    assert excerpt(body, "^nope") is None
    assert excerpt("# A\nx\n```\n# not\n```\n# B\n", "A") == ("# A\nx\n```\n# not\n```", 0)


def test_links_to_attachments_open_the_resolved_file_only() -> None:
    body = "[paper](files/paper.pdf) [gone](files/gone.pdf) [js](javascript:alert(1))\n"
    refs = [
        {
            "kind": "markdown",
            "target": "files/paper.pdf",
            "status": "resolved",
            "path": "files/paper.pdf",
            "line": 1,
        },
        {"kind": "markdown", "target": "files/gone.pdf", "status": "missing", "path": None, "line": 1},
    ]
    html = render_markdown(body, 1, refs)
    assert hrefs(html) == ["attachment:files/paper.pdf"]
    anchor = parse_anchor("attachment:files/paper.pdf")
    assert (anchor.action, anchor.value) == ("attachment", "files/paper.pdf")
    assert parse_anchor("attachment:/etc/passwd").action == "refused"
