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
text. Images are never fetched: they show as their alt text.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from knowledge_desktop.ui.render.links import external_href, record_href, scheme_of
from knowledge_desktop.ui.render.values import title_attr

STATUS_TEXT = {
    "missing": ("missing", "No record matches this link"),
    "ambiguous": ("ambiguous", "Several records match this link; use a path to pick one"),
    "outside": ("outside", "This link leaves the partition, so it is not followed"),
    "broken-merge": ("broken merge", "This link names a merged page whose merge chain is broken"),
    "unindexed": ("not indexed", "This link is not in the index yet; it refreshes on the next scan"),
}
GENERATED_TIP = "Generated section — not a link of this record"


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
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {
            "target": written.split("#", 1)[0].strip(),
            "written": written.strip(),
            "label": label.strip() or None,
            "embed": start > 0 and state.src[start - 1] == "!",
        }
    state.pos = close + 2
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
            kind, target, line = str(ref.get("kind")), str(ref.get("target")), ref.get("line")
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


def _annotate(tokens: list[Token], first_line: int, index: LinkIndex) -> None:
    """Give every link token its file line and the reference row that judged it."""
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
            elif child.type == "wikilink" and not child.meta["embed"]:
                child.meta["ref"] = index.find("wiki", child.meta["target"], line)
            elif child.type == "link_open":
                target = _markdown_target(str(child.attrGet("href") or ""))
                child.meta = {**(child.meta or {}), "md_target": target}
                if target is not None:
                    child.meta["ref"] = index.find("markdown", posixpath.normpath(target), line) or (
                        index.find("markdown", target, line)
                    )


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
        text = escapeHtml(meta["label"] or meta["written"])
        if meta["embed"]:
            return f'<span class="muted" title="Embeds are not shown">{text}</span>'
        if "generated" in meta:
            opening, closing = _generated_html(tokens[idx], env)
            return opening + text + closing
        return _status_link(meta.get("ref"), text, "[[" + tokens[idx].content + "]]")

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
        return f'<span class="muted"{title_attr(f"Images are not loaded: {src}")}>[{escapeHtml(alt)}]</span>'

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


def _status_link(ref: dict[str, Any] | None, text: str, written: str) -> str:
    status = str(ref.get("status")) if ref else "unindexed"
    if ref is not None and status == "resolved":
        key = str(ref.get("path") or ref.get("id") or "")
        return f'<a href="{escapeHtml(record_href(key))}"{title_attr(key)}>{text}</a>'
    word, why = STATUS_TEXT.get(status, (status, "This link is not followed"))
    return (
        f'<span class="{_css(status)}"{title_attr(f"{why}: {written}")}>{text}</span>'
        f'<sup class="{_css(status)}"> {escapeHtml(word)}</sup>'
    )


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}, renderer_cls=_Renderer)
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink)
    return md


_MD = _build()


def render_markdown(
    body: str,
    body_line: int,
    references: Sequence[dict[str, Any]],
    generated: Mapping[tuple[str, str], str] | None = None,
) -> str:
    """HTML for a record body whose first line is file line `body_line` (one-based).

    `generated` maps (kind, target) of links in generated sections (`generated_targets`)
    to the record key each resolves to, for the ones the caller could resolve."""
    env: dict[str, Any] = {"generated": generated or {}}
    tokens = _MD.parse(body, env)
    _annotate(tokens, body_line, LinkIndex(references))
    return str(_MD.renderer.render(tokens, _MD.options, env))
