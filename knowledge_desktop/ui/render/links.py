"""Which links the Record pane may follow, and how internal ones are spelled.

Rendered links carry one of three kinds of address:

- `record:<key>` — open a record or note by id or vault-relative path
  (percent-encoded, so a `#<n>` suffix can add the line to show, or a
  `#h-…` / `#b-…` suffix the heading or block to scroll to);
- `tag:<name>` — show the notes and records carrying a tag (`#nested/tag`);
- `attachment:<path>` — open a vault file that is not Markdown (a PDF the
  index resolved a link to) in the desktop's application for it;
- `#<name>` — scroll to a section of the rendered record itself;
- `line:<n>` — show this file's source at one-based line n;
- `http:`, `https:`, `mailto:` — handed to the desktop to open outside the app.

Anything else (`javascript:`, `data:`, `file:`, relative paths that are not
records, unknown schemes) is never emitted as a link: the renderer shows the
text plainly, with the address in a tooltip, so a hostile record cannot make
a click do something the user did not expect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, unquote

EXTERNAL_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_TAG_NAME = re.compile(r"[\w/-]+", re.UNICODE)
_FRAGMENT = re.compile(r"[hb]-[\w-]+", re.UNICODE)


def record_href(key: str) -> str:
    """The internal address that opens a record by id or vault-relative path."""
    return "record:" + quote(key, safe="/_-.~")


def tag_href(name: str) -> str:
    """The internal address that filters the catalog by a tag (written without `#`)."""
    return "tag:" + quote(name, safe="/_-")


def attachment_href(path: str) -> str:
    """The internal address that opens a vault file that is not Markdown, outside the app."""
    return "attachment:" + quote(path, safe="/_-.~")


def line_href(line: int) -> str:
    return f"line:{int(line)}"


def scheme_of(url: str) -> str | None:
    """The lower-case scheme of an address, ignoring the control characters and
    blanks browsers skip (so `java\\tscript:` is still seen as `javascript`)."""
    match = _SCHEME.match(_CONTROL.sub("", url))
    return match.group(1).lower() if match else None


def external_href(url: str) -> str | None:
    """`url` when it may open outside the app (http, https, mailto), else None."""
    cleaned = url.strip()
    if scheme_of(cleaned) in EXTERNAL_SCHEMES and not _CONTROL.search(cleaned):
        return cleaned
    return None


@dataclass(frozen=True, slots=True)
class Anchor:
    """What a clicked address asks for."""

    action: Literal["record", "line", "fragment", "tag", "attachment", "external", "refused"]
    value: str
    line: int = 0
    """For `record`: the one-based line to show (from a `#<n>` suffix), 0 for none."""
    fragment: str = ""
    """For `record`: the heading or block anchor to scroll to (a `#h-…`/`#b-…` suffix)."""


def parse_anchor(url: str) -> Anchor:
    """Decide what a click on `url` does; anything unexpected is refused."""
    if url.startswith("#") and len(url) > 1:
        return Anchor("fragment", url[1:])
    scheme = scheme_of(url)
    if scheme == "record":
        quoted, _, suffix = url.split(":", 1)[1].partition("#")
        key = unquote(quoted)
        if not key:
            return Anchor("refused", url)
        fragment = unquote(suffix)
        if _FRAGMENT.fullmatch(fragment):
            return Anchor("record", key, 0, fragment)
        return Anchor("record", key, int(suffix) if suffix.isdigit() else 0)
    if scheme == "attachment":
        path = unquote(url.split(":", 1)[1])
        return (
            Anchor("attachment", path)
            if path and not path.startswith(("/", "\\"))
            else Anchor("refused", url)
        )
    if scheme == "tag":
        name = unquote(url.split(":", 1)[1])
        return Anchor("tag", name) if _TAG_NAME.fullmatch(name) else Anchor("refused", url)
    if scheme == "line":
        number = url.split(":", 1)[1]
        return Anchor("line", number) if number.isdigit() and int(number) > 0 else Anchor("refused", url)
    if external_href(url) is not None:
        return Anchor("external", url.strip())
    return Anchor("refused", url)
