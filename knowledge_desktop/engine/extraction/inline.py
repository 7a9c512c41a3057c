"""The visible text of one line of Markdown inline syntax, for names and ids.

A reader names a changelog entry or a glossary table row by what the rendered
line shows, not by its link destinations (spec: knowledge-entities-extraction.md,
"Extraction and identity": a changelog id binds the entry title). So:

- an inline link `[text](dest)` or `[text](dest "title")` reads as `text`, an
  image `![alt](src)` as `alt`;
- emphasis delimiters (`**`, `__`, `*`, `_`, and `***`/`___`) that open and close
  around words are dropped; one inside a word (`snake_case`) or between spaces
  (`2 * 3`) stays;
- a code span reads as its inner text without the backticks (one space of padding
  on each side removed, as CommonMark renders it), and nothing inside it is syntax;
- runs of white space become one space.

Everything else stays as written: reference links, autolinks, HTML, and backslash
escapes (the backslash is kept, the escaped character is never syntax).

Every step is one pass over the text, or a binary search over positions found in
one pass, so a hostile line (thousands of `[`, `](`, backticks or `*`) costs time
near-linear in its length.
"""

from __future__ import annotations

import bisect
import re

_BACKTICKS = re.compile(r"`+")
_DELIMS = re.compile(r"\*+|_+")
_WS = re.compile(r"\s+")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_PLAIN = re.compile(r"[`\[\]*_\\]")
_HOLE = "\x00"
"""Stands in for characters that are no longer syntax (code, escapes, destinations)."""
_TITLE_CLOSE = {'"': '"', "'": "'", "(": ")"}


def visible_text(text: str) -> str:
    """`text` as a reader sees it rendered, white space collapsed."""
    if not _PLAIN.search(text):
        return " ".join(text.split())
    masked = list(text)
    drop = bytearray(len(text))
    _escapes(text, masked)
    _code_spans(text, masked, drop)
    _links("".join(masked), masked, drop)
    _emphasis("".join(masked), drop)
    kept = "".join(c for c, d in zip(text, drop, strict=True) if not d)
    return " ".join(kept.split())


def _escapes(text: str, masked: list[str]) -> None:
    """A backslash before punctuation makes that character literal."""
    i = text.find("\\")
    while i != -1 and i + 1 < len(text):
        if text[i + 1] in _PUNCT:
            masked[i + 1] = _HOLE
            i = text.find("\\", i + 2)
        else:
            i = text.find("\\", i + 1)


def _code_spans(text: str, masked: list[str], drop: bytearray) -> None:
    """A backtick run closes at the next run of the same length; what lies between is
    code. Runs are visited in order and each length keeps a cursor into its own list,
    so no run is looked at twice."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text) if masked[m.start()] != _HOLE]
    by_length: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(runs):
        by_length.setdefault(b - a, []).append(k)
    cursor = dict.fromkeys(by_length, 0)
    k = 0
    while k < len(runs):
        a, b = runs[k]
        same = by_length[b - a]
        c = cursor[b - a]
        while c < len(same) and same[c] <= k:
            c += 1
        cursor[b - a] = c
        if c == len(same):
            k += 1
            continue
        close_a, close_b = runs[same[c]]
        for n in range(a, close_b):
            masked[n] = _HOLE
        for n in (*range(a, b), *range(close_a, close_b)):
            drop[n] = 1
        inner = text[b:close_a]
        if len(inner) >= 2 and inner[0] == " " and inner[-1] == " " and inner.strip(" "):
            drop[b] = drop[close_a - 1] = 1
        k = same[c] + 1


def _links(flat: str, masked: list[str], drop: bytearray) -> None:
    """Inline links and images: the brackets and the `(destination "title")` part are
    dropped, the link text stays. Brackets and parentheses are paired once with a
    stack; each candidate is then checked with binary searches, never by rescanning."""
    close_of: dict[int, int] = {}
    stack: list[int] = []
    for m in re.finditer(r"[()]", flat):
        if m.group() == "(":
            stack.append(m.start())
        elif stack:
            close_of[stack.pop()] = m.start()
    spaces = [(m.start(), m.end()) for m in _WS.finditer(flat)]
    starts = [a for a, _ in spaces]
    gts = [m.start() for m in re.finditer(">", flat)]
    pairs: list[tuple[int, int]] = []
    stack = []
    for m in re.finditer(r"[\[\]]", flat):
        if m.group() == "[":
            stack.append(m.start())
        elif stack:
            pairs.append((stack.pop(), m.start()))
    pairs.sort()  # outer before inner: an inner pair inside a destination is then void
    for open_at, close_at in pairs:
        if masked[open_at] == _HOLE:
            continue
        paren = close_at + 1
        end = close_of.get(paren) if paren < len(flat) and flat[paren] == "(" else None
        if end is None or not _destination(flat, paren + 1, end, spaces, starts, gts):
            continue
        image = open_at > 0 and flat[open_at - 1] == "!" and masked[open_at - 1] == "!"
        drop[open_at - 1 if image else open_at] = 1
        drop[open_at] = 1
        for n in range(close_at, end + 1):
            drop[n] = 1
            masked[n] = _HOLE


def _destination(
    flat: str, start: int, end: int, spaces: list[tuple[int, int]], starts: list[int], gts: list[int]
) -> bool:
    """Whether `flat[start:end]` is `dest`, `<dest>` or either followed by a title,
    with optional white space around."""
    i = _skip_space(start, end, spaces, starts)
    if i >= end:
        return True  # `[text]()`
    if flat[i] == "<":
        g = bisect.bisect_left(gts, i)
        if g == len(gts) or gts[g] >= end:
            return False
        after = gts[g] + 1
    else:
        s = bisect.bisect_left(starts, i)
        after = min(starts[s], end) if s < len(starts) else end
    if after >= end:
        return True
    t = _skip_space(after, end, spaces, starts)
    if t >= end:
        return True
    if t == after or flat[t] not in _TITLE_CLOSE:
        return False  # text glued to the destination, or a second word that is no title
    last = end - 1
    s = bisect.bisect_right(starts, last) - 1
    if s >= 0 and spaces[s][0] <= last < spaces[s][1]:
        last = spaces[s][0] - 1
    return last > t and flat[last] == _TITLE_CLOSE[flat[t]]


def _skip_space(i: int, end: int, spaces: list[tuple[int, int]], starts: list[int]) -> int:
    s = bisect.bisect_right(starts, i) - 1
    if s >= 0 and spaces[s][0] <= i < spaces[s][1]:
        return min(spaces[s][1], end)
    return i


def _emphasis(flat: str, drop: bytearray) -> None:
    """Delimiter runs of one to three `*` or `_` that can open (flanking as CommonMark
    says) wait on a stack per character and length; a run that can close drops itself
    and the latest opener of its kind. Unpaired runs stay literal."""
    waiting: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for m in _DELIMS.finditer(flat):
        a, b = m.start(), m.end()
        if b - a > 3:
            continue
        before = flat[a - 1] if a > 0 else " "
        after = flat[b] if b < len(flat) else " "
        left = not after.isspace() and (after not in _PUNCT or before.isspace() or before in _PUNCT)
        right = not before.isspace() and (before not in _PUNCT or after.isspace() or after in _PUNCT)
        if flat[a] == "_":
            can_open = left and (not right or before in _PUNCT)
            can_close = right and (not left or after in _PUNCT)
        else:
            can_open, can_close = left, right
        key = (flat[a], b - a)
        openers = waiting.get(key)
        if can_close and openers:
            o_a, o_b = openers.pop()
            for n in (*range(o_a, o_b), *range(a, b)):
                drop[n] = 1
        elif can_open:
            waiting.setdefault(key, []).append((a, b))
