"""A record body as HTML: CommonMark plus wikilinks, each link showing its status.

The engine already resolved every link a body makes (the `references` rows
of `Vault.show()`, one per link with its file line and status). Rendering
parses the body again with markdown-it-py and pairs each link it meets with
its row by kind, target and file line, so a link is drawn the way the index
judged it: resolved links open the record, missing, ambiguous or
out-of-partition ones are drawn as marked text with a tooltip saying why.

Links inside a generated `<!-- backlinks:start --> … <!-- backlinks:end -->`
section are not links of the record (the index leaves them out, so they
have no rows): they are drawn as plain navigation — a link when their target
resolves (from the record's own rows, or the `generated` map the caller
looked up), else muted text saying why — never as broken.

Raw HTML is never passed through. markdown-it is asked to recognise HTML
only so that comments can be dropped (the format keeps them in the file but
does not show them); every other HTML block or tag is printed as escaped
text. Images are never fetched by the document: an image shows only when the
caller's `Hooks.image` hands back a resource name for a path inside the vault
(the pane reads and decodes it itself); otherwise it shows as its alt text.

Notes (issue 25) are read with Obsidian's syntax: `[[Name|shown]]` shows the
shown text, `[[Name#Heading]]` and `[[Name#^block]]` open the note at that
heading or block (headings and `^block-id` paragraphs carry anchors, see
`note_text`), `![[Note]]` / `![[Note#Heading]]` embed the other note's text
through `Hooks.embed` (at most `MAX_EMBED_DEPTH` deep, never a note already
being embedded), `![[image.png]]` and `![alt](path.png)` show images inside
the vault, and an inline `#tag` / `#nested/tag` (not in code, not in a
heading) is a `tag:` link that filters the catalog.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from knowledge_desktop.ui.render.links import attachment_href, external_href, record_href, scheme_of, tag_href
from knowledge_desktop.ui.render.note_text import (
    BLOCK_ID,
    block_anchor,
    excerpt,
    fragment_anchor,
    heading_anchor,
)
from knowledge_desktop.ui.render.values import title_attr

STATUS_TEXT = {
    "missing": ("missing", "No record matches this link"),
    "ambiguous": ("ambiguous", "Several records match this link; use a path to pick one"),
    "outside": ("outside", "This link leaves the partition, so it is not followed"),
    "broken-merge": ("broken merge", "This link names a merged page whose merge chain is broken"),
    "unindexed": ("not indexed", "This link is not in the index yet; it refreshes on the next scan"),
}
GENERATED_TIP = "Generated section — not a link of this record"
MAX_EMBED_DEPTH = 3
"""An embed inside an embed inside an embed is shown; one level deeper is a placeholder."""
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".svg")
_TAG = re.compile(r"#([\w/-]+)", re.UNICODE)
_TAG_BEFORE = frozenset(" \t\n([{,;")


@dataclass(frozen=True)
class Embedded:
    """What `Hooks.embed` answers for a note path: the text to show in place of the embed."""

    path: str
    title: str
    body: str
    body_line: int = 1
    references: Sequence[dict[str, Any]] = ()


@dataclass(frozen=True)
class Hooks:
    """What the renderer may ask the caller while it renders (on the caller's thread).

    `embed(path)` gives the body of the note at a resolved vault path, or None when it
    cannot be read. `image(paths)` gets vault-relative candidate paths of an image (the
    renderer has already refused addresses with a scheme and paths climbing out of the
    vault) and answers a resource name to put in `<img src>`, or None; the caller checks
    the vault boundary again when it reads the file. `folder` is the folder of the file
    rendered (relative Markdown images start there)."""

    embed: Callable[[str], Embedded | None] | None = None
    image: Callable[[Sequence[str]], str | None] | None = None
    resolve: Callable[[str], str | None] | None = None
    """For an embed the index has no row for (a record's links leave embeds out): the path
    its name leads to, or None."""
    folder: str = ""
    depth: int = 0
    seen: frozenset[str] = frozenset()


def _wikilink(state: StateInline, silent: bool) -> bool:
    """`[[target]]` / `[[target|label]]` on one line, without brackets inside."""
    start = state.pos
    if not state.src.startswith("[[", start):
        return False
    close = state.src.find("]]", start + 2)
    if close < 0:
        return False
    inner = state.src[start + 2 : close]
    if not inner.strip() or any(c in inner for c in "[]\n"):
        return False
    if not silent:
        written, _, label = inner.partition("|")
        name, _, fragment = written.partition("#")
        embed = start > 0 and state.src[start - 1] == "!"
        if embed and state.pending.endswith("!"):
            state.pending = state.pending[:-1]  # the `!` is part of the embed, not text
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {
            "target": name.strip(),
            "fragment": fragment.strip(),
            "written": written.strip(),
            "label": label.strip() or None,
            "embed": embed,
        }
    state.pos = close + 2
    return True


def _tag(state: StateInline, silent: bool) -> bool:
    """An inline `#tag` / `#nested/tag` after a blank or an opening bracket; a `#` followed
    only by digits (`#1`) is an issue number, not a tag."""
    start = state.pos
    if state.src[start] != "#" or (start > 0 and state.src[start - 1] not in _TAG_BEFORE):
        return False
    match = _TAG.match(state.src, start)
    if match is None:
        return False
    name = match.group(1).rstrip("/-")
    if not name or not re.search(r"[^\d/_-]", name):
        return False
    if not silent:
        token = state.push("tag", "", 0)
        token.content = name
    state.pos = start + 1 + len(name)
    return True


def _markdown_target(href: str) -> str | None:
    """The relative `.md` path a Markdown link points at (decoded), else None."""
    if not href or href[0] in "#/\\" or scheme_of(href) is not None:
        return None
    path = unquote(href.split("#", 1)[0].split("?", 1)[0])
    return path if path.lower().endswith(".md") else None


class LinkIndex:
    """The body's reference rows, found by (kind, target, file line), else by (kind, target)."""

    def __init__(self, references: Sequence[dict[str, Any]]) -> None:
        self.exact: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
        self.loose: dict[tuple[str, str], dict[str, Any]] = {}
        for ref in references:
            target, line = str(ref.get("target")), ref.get("line")
            # A note's rows (Vault.show of a note) may not say which syntax linked.
            kinds = [str(ref["kind"])] if ref.get("kind") else ["wiki", "markdown"]
            for kind in kinds:
                if isinstance(line, int):
                    self.exact.setdefault((kind, target, line), []).append(ref)
                self.loose.setdefault((kind, target), ref)

    def resolved(self, kind: str, target: str) -> dict[str, Any] | None:
        """A resolved row for this target anywhere in the body, else None."""
        ref = self.loose.get((kind, target))
        return ref if ref is not None and ref.get("status") == "resolved" else None

    def find(self, kind: str, target: str, line: int | None) -> dict[str, Any] | None:
        if line is not None:
            rows = self.exact.get((kind, target, line))
            if rows:
                return rows.pop(0) if len(rows) > 1 else rows[0]
        return self.loose.get((kind, target))


def _generated_blocks(tokens: list[Token]) -> list[tuple[Token, bool]]:
    """Every block token, with whether it sits in a generated backlinks section
    (the rule of the link extractor, so the two agree on what is generated)."""
    out: list[tuple[Token, bool]] = []
    inside = False
    for block in tokens:
        if block.type == "html_block":
            if "backlinks:start" in block.content:
                inside = "backlinks:end" not in block.content.split("backlinks:start", 1)[1]
            elif "backlinks:end" in block.content:
                inside = False
        out.append((block, inside))
    return out


def generated_targets(body: str) -> list[tuple[str, str]]:
    """(kind, target) of every link inside the body's generated sections, for the caller to resolve.

    Markdown targets are written as in the file (relative to it, percent-decoded)."""
    out: list[tuple[str, str]] = []
    for block, inside in _generated_blocks(_MD.parse(body, {})):
        if not inside or block.type != "inline":
            continue
        for child in block.children or []:
            if child.type == "wikilink" and not child.meta["embed"] and child.meta["target"]:
                out.append(("wiki", child.meta["target"]))
            elif child.type == "link_open":
                target = _markdown_target(str(child.attrGet("href") or ""))
                if target is not None:
                    out.append(("markdown", target))
    return list(dict.fromkeys(out))


def _wiki_ref(index: LinkIndex, meta: dict[str, Any], line: int | None) -> dict[str, Any] | None:
    """The row of a wikilink: a note's rows name an embed's kind `embed` and keep the
    `#heading` in the target, a record's key the name alone."""
    for kind in ("embed", "wiki") if meta["embed"] else ("wiki",):
        for target in dict.fromkeys((meta["written"], meta["target"])):
            found = index.find(kind, target, line)
            if found is not None:
                return found
    return None


def _anchor_blocks(tokens: list[Token]) -> None:
    """Headings get an `id` (their anchor); a paragraph ending in `^block-id` loses the id
    text and gets the block's anchor; tags inside headings are plain text again."""
    for n, block in enumerate(tokens):
        if block.type != "inline" or not block.children or n == 0:
            continue
        opening = tokens[n - 1]
        if opening.type == "heading_open":
            opening.attrSet("id", heading_anchor(block.content))
            for child in block.children:
                if child.type == "tag":
                    child.type, child.content = "text", "#" + child.content
            continue
        last = block.children[-1]
        match = BLOCK_ID.search(last.content) if last.type == "text" else None
        if match is not None:
            last.content = last.content[: match.start()].rstrip()
            anchor = Token("block_anchor", "", 0)
            anchor.meta = {"name": block_anchor(match.group(1))}
            block.children.insert(0, anchor)


def _annotate(tokens: list[Token], first_line: int, index: LinkIndex) -> None:
    """Give every link token its file line and the reference row that judged it."""
    _anchor_blocks(tokens)
    for block, generated in _generated_blocks(tokens):
        if block.type != "inline" or not block.children:
            continue
        base = first_line + block.map[0] if block.map else None
        offset = 0
        for child in block.children:
            if child.type in ("softbreak", "hardbreak"):
                offset += 1
                continue
            line = None if base is None else base + offset
            if generated and child.type in {"wikilink", "link_open"}:
                _mark_generated(child, index)
            elif child.type == "wikilink":
                child.meta["ref"] = _wiki_ref(index, child.meta, line) if child.meta["target"] else None
            elif child.type == "link_open":
                target = _markdown_target(str(child.attrGet("href") or ""))
                child.meta = {**(child.meta or {}), "md_target": target}
                if target is not None:
                    child.meta["ref"] = index.find("markdown", posixpath.normpath(target), line) or (
                        index.find("markdown", target, line)
                    )
                else:
                    child.meta["attachment"] = _attachment(index, str(child.attrGet("href") or ""), line)


def _attachment(index: LinkIndex, href: str, line: int | None) -> str | None:
    """The vault file a relative link to a non-Markdown file resolved to (the index's row), else None."""
    if not href or href[0] in "#/\\" or scheme_of(href) is not None:
        return None
    ref = index.find("markdown", unquote(href.split("#", 1)[0].split("?", 1)[0]), line)
    if ref is None or ref.get("status") != "resolved" or not ref.get("path"):
        return None
    return str(ref["path"])


def _mark_generated(token: Token, index: LinkIndex) -> None:
    """A link of a generated section: navigation by target text, never judged as the record's link."""
    if token.type == "wikilink":
        if token.meta["embed"]:
            return
        kind, target = "wiki", str(token.meta["target"])
    else:
        written = _markdown_target(str(token.attrGet("href") or ""))
        if written is None:
            return  # an external or refused address is drawn as anywhere else
        kind, target = "markdown", written
    ref = index.resolved(kind, target)
    if ref is None and kind == "markdown":
        ref = index.resolved(kind, posixpath.normpath(target))
    token.meta = {**(token.meta or {}), "generated": (kind, target, ref)}


def _generated_html(token: Token, env: Any) -> tuple[str, str]:
    """Opening and closing markup around the text of a generated-section link."""
    kind, target, ref = token.meta["generated"]
    found: Mapping[tuple[str, str], str] = env.get("generated") or {}
    key = found.get((kind, target))
    if key is None and ref is not None:
        key = str(ref.get("path") or ref.get("id") or "")
    if key:
        return (
            f'<a href="{escapeHtml(record_href(key))}"{title_attr(f"{GENERATED_TIP}; opens {key}")}>',
            "</a>",
        )
    return f'<span class="muted" title="{escapeHtml(GENERATED_TIP)}">', "</span>"


_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


class _Renderer(RendererHTML):
    """markdown-it's HTML renderer with every address and raw tag vetted."""

    def wikilink(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: Any) -> str:
        meta = tokens[idx].meta
        shown = meta["label"] or (
            f"{meta['target']} › {meta['fragment']}"
            if meta["target"] and meta["fragment"]
            else meta["written"]
        )
        text = escapeHtml(shown.lstrip("#") if not meta["target"] else shown)
        hooks: Hooks | None = env.get("hooks")
        if meta["embed"]:
            if hooks is None:
                return f'<span class="muted" title="Embeds are not shown">{text}</span>'
            return _embed_html(meta, hooks, env)
        if "generated" in meta:
            opening, closing = _generated_html(tokens[idx], env)
            return opening + text + closing
        if not meta["target"] and meta["fragment"]:  # `[[#Heading]]`: a place in this file
            return f'<a href="#{escapeHtml(fragment_anchor(meta["fragment"]))}">{text}</a>'
        return _status_link(meta.get("ref"), text, "[[" + tokens[idx].content + "]]", meta["fragment"])

    def tag(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: Any) -> str:
        name = tokens[idx].content
        tip = title_attr(f"Show notes and records tagged #{name}")
        return f'<a class="tag" href="{escapeHtml(tag_href(name))}"{tip}>#{escapeHtml(name)}</a>'

    def block_anchor(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: Any) -> str:
        return f'<a name="{escapeHtml(tokens[idx].meta["name"])}"></a>'

    def link_open(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: Any) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        stack: list[str] = env.setdefault("link_stack", [])
        if "generated" in (token.meta or {}):
            opening, closing = _generated_html(token, env)
            stack.append(closing)
            return opening
        if token.meta.get("md_target") is not None:
            ref = token.meta.get("ref")
            if ref is not None and ref.get("status") == "resolved":
                stack.append("</a>")
                key = str(ref.get("path") or ref.get("id") or "")
                return f'<a href="{escapeHtml(record_href(key))}"{title_attr(key)}>'
            status = str(ref.get("status")) if ref else "unindexed"
            word, why = STATUS_TEXT.get(status, (status, "This link is not followed"))
            stack.append(f'</span><sup class="{_css(status)}"> {escapeHtml(word)}</sup>')
            return f'<span class="{_css(status)}"{title_attr(f"{why}: {href}")}>'
        attachment = (token.meta or {}).get("attachment")
        if attachment:
            stack.append('</a><sup class="muted">&#8599;</sup>')
            tip = title_attr(f"Opens {attachment} in its application")
            return f'<a href="{escapeHtml(attachment_href(attachment))}"{tip}>'
        allowed = external_href(href)
        if allowed is not None:
            stack.append('</a><sup class="muted">&#8599;</sup>')
            return f'<a href="{escapeHtml(allowed)}"{title_attr(f"Opens outside the app: {allowed}")}>'
        stack.append("</span>")
        return f'<span class="refused"{title_attr(f"Not a link the app follows: {href}")}>'

    def link_close(self, _tokens: Sequence[Token], _idx: int, _options: OptionsDict, env: Any) -> str:
        stack: list[str] = env.setdefault("link_stack", [])
        return stack.pop() if stack else ""

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env) or "image"
        src = str(token.attrGet("src") or "")
        hooks: Hooks | None = env.get("hooks")
        rel = _image_path(src, hooks.folder) if hooks is not None and hooks.image is not None else None
        name = hooks.image([rel]) if hooks is not None and hooks.image is not None and rel else None
        if name is not None:
            return _img(name, alt)
        why = "Images are not loaded" if hooks is None else "Only images inside the vault are shown"
        return f'<span class="muted"{title_attr(f"{why}: {src}")}>[{escapeHtml(alt)}]</span>'

    def html_block(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: Any) -> str:
        shown = _COMMENT.sub("", tokens[idx].content).strip("\n")
        if not shown.strip():
            return ""
        return f'<p class="raw">{escapeHtml(shown).replace(chr(10), "<br/>")}</p>\n'

    def html_inline(self, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: Any) -> str:
        return escapeHtml(_COMMENT.sub("", tokens[idx].content))

    def table_open(self, _tokens: Sequence[Token], _idx: int, _options: OptionsDict, _env: Any) -> str:
        return '<table class="md" border="1" cellspacing="0" cellpadding="4">\n'


def _css(status: str) -> str:
    return "link-" + re.sub(r"[^a-z]+", "-", status.lower())


def _status_link(ref: dict[str, Any] | None, text: str, written: str, fragment: str = "") -> str:
    status = str(ref.get("status")) if ref else "unindexed"
    if ref is not None and status == "resolved":
        key = str(ref.get("path") or ref.get("id") or "")
        href = record_href(key) + (f"#{fragment_anchor(fragment)}" if fragment else "")
        tip = f"{key} › {fragment}" if fragment else key
        return f'<a href="{escapeHtml(href)}"{title_attr(tip)}>{text}</a>'
    word, why = STATUS_TEXT.get(status, (status, "This link is not followed"))
    return (
        f'<span class="{_css(status)}"{title_attr(f"{why}: {written}")}>{text}</span>'
        f'<sup class="{_css(status)}"> {escapeHtml(word)}</sup>'
    )


def _img(name: str, alt: str) -> str:
    return f'<img src="{escapeHtml(name)}" alt="{escapeHtml(alt)}"{title_attr(alt)}/>'


def _image_path(src: str, folder: str) -> str | None:
    """The vault-relative path a Markdown image names, or None for an address with a
    scheme (remote or otherwise), an absolute path, or one climbing out of the vault."""
    if not src or scheme_of(src) is not None or src[0] in "/\\":
        return None
    path = posixpath.normpath(posixpath.join(folder, unquote(src.split("?", 1)[0].split("#", 1)[0])))
    if path.startswith("../") or path in ("..", ".") or "\x00" in path:
        return None
    return path


def _embed_html(meta: dict[str, Any], hooks: Hooks, env: Any) -> str:
    """`![[…]]`: an image inside the vault, or the other note's text (or its heading's
    or block's part), in a box; a placeholder saying why when it cannot be shown."""
    written = str(meta["written"])
    ref: dict[str, Any] | None = meta.get("ref")
    resolved = str(ref.get("path") or "") if ref is not None and ref.get("status") == "resolved" else ""
    if ref is None and hooks.resolve is not None and not meta["target"].lower().endswith(IMAGE_SUFFIXES):
        resolved = hooks.resolve(str(meta["target"])) or ""
    if meta["target"].lower().endswith(IMAGE_SUFFIXES):
        if hooks.image is not None:
            candidates = [resolved] if resolved else []
            for guess in (_image_path(meta["target"], hooks.folder), _image_path(meta["target"], "")):
                if guess and guess not in candidates:
                    candidates.append(guess)
            name = hooks.image(candidates) if candidates else None
            if name is not None:
                return _img(name, meta["label"] or meta["target"])
        return _placeholder(f"Image {written} is not in this vault")
    if not resolved:
        status = str(ref.get("status")) if ref is not None else "unindexed"
        word = {"missing": "not found", "ambiguous": "names several notes"}.get(status, "is not indexed")
        return _placeholder(f"Embedded note {written} {word}")
    if hooks.depth >= MAX_EMBED_DEPTH:
        return _placeholder(f"{written} is embedded too deep to show here", resolved)
    if resolved in hooks.seen:
        return _placeholder(f"{written} embeds itself; shown once above", resolved)
    found = hooks.embed(resolved) if hooks.embed is not None else None
    if found is None:
        return _placeholder(f"Embedded note {written} cannot be read", resolved)
    body, first = found.body, found.body_line
    if meta["fragment"]:
        part = excerpt(body, meta["fragment"])
        if part is None:
            return _placeholder(f"{written}: no such heading or block in {found.title}", resolved)
        body, first = part[0], first + part[1]
    inner = Hooks(
        embed=hooks.embed,
        image=hooks.image,
        resolve=hooks.resolve,
        folder=posixpath.dirname(found.path),
        depth=hooks.depth + 1,
        seen=hooks.seen | {resolved},
    )
    html = render_markdown(body, first, found.references, hooks=inner, anchors=False)
    title = escapeHtml(found.title)
    href = escapeHtml(
        record_href(resolved) + (f"#{fragment_anchor(meta['fragment'])}" if meta["fragment"] else "")
    )
    return (
        '<table class="embed" width="100%" cellspacing="0" cellpadding="6"><tr><td>'
        f'<p class="muted"><a href="{href}"{title_attr(resolved)}>{title}</a></p>{html}</td></tr></table>'
    )


def _placeholder(text: str, path: str = "") -> str:
    link = f' <a href="{escapeHtml(record_href(path))}">open</a>' if path else ""
    return f'<span class="embed-missing"{title_attr(text)}>[{escapeHtml(text)}]</span>{link}'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}, renderer_cls=_Renderer)
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("link", "tag", _tag)
    return md


_MD = _build()


def render_markdown(
    body: str,
    body_line: int,
    references: Sequence[dict[str, Any]],
    generated: Mapping[tuple[str, str], str] | None = None,
    *,
    hooks: Hooks | None = None,
    anchors: bool = True,
) -> str:
    """HTML for a record body whose first line is file line `body_line` (one-based).

    `generated` maps (kind, target) of links in generated sections (`generated_targets`)
    to the record key each resolves to, for the ones the caller could resolve. With
    `hooks`, embeds and images inside the vault are shown (see `Hooks`). An embedded
    body is rendered with `anchors` off, so its headings do not answer this file's links."""
    env: dict[str, Any] = {"generated": generated or {}, "hooks": hooks}
    tokens = _MD.parse(body, env)
    _annotate(tokens, body_line, LinkIndex(references))
    if not anchors:
        for token in tokens:
            if token.type == "heading_open":
                token.attrs.pop("id", None)
            elif token.type == "inline":
                token.children = [c for c in token.children or [] if c.type != "block_anchor"]
    return str(_MD.renderer.render(tokens, _MD.options, env))
