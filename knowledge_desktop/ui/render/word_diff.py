"""A unified diff as HTML with the changed words highlighted (issue 15 §3, the History tab).

The engine answers a diff as unified text (`VaultHistory.diff`); a line-level diff
says *that* a long paragraph changed, not *what* in it. Here each run of removed lines
is paired with the run of added lines that follows it, and each pair is compared word
by word (`difflib.SequenceMatcher` over word and punctuation tokens), so only the
words that differ get the strong tint. Plain Python without Qt: it runs on a worker,
with the colours the pane read from its palette (`Colors`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from html import escape

from knowledge_desktop.ui.render.theme import Colors

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
MAX_LINES = 5000
"""Diff lines shown at most; a longer diff ends with a line saying how many were left out."""
_RED, _GREEN = "#e5534b", "#2da44e"


@dataclass
class WordDiff:
    """The HTML to show, and the words highlighted on each side (what a test or a
    screen reader can be told without parsing the HTML)."""

    html: str
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    empty: bool = False


def _mix(base: str, over: str, amount: float) -> str:
    """`base` moved `amount` of the way to `over` (both `#rrggbb`)."""
    a = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(over[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(a, b, strict=True))


@dataclass(frozen=True)
class _Tints:
    line_removed: str
    line_added: str
    word_removed: str
    word_added: str

    @classmethod
    def of(cls, colors: Colors) -> _Tints:
        # Stronger tints on a dark base: a pale mix of red on near-black is invisible.
        soft, strong = (0.22, 0.5) if colors.dark else (0.12, 0.35)
        return cls(
            _mix(colors.base, _RED, soft),
            _mix(colors.base, _GREEN, soft),
            _mix(colors.base, _RED, strong),
            _mix(colors.base, _GREEN, strong),
        )


def tokens(line: str) -> list[str]:
    return _TOKEN.findall(line)


def _words(old: str, new: str, tints: _Tints, out: WordDiff) -> tuple[str, str]:
    """The two lines as HTML with the tokens that differ wrapped in a strong tint."""
    a, b = tokens(old), tokens(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        old_part, new_part = "".join(a[i1:i2]), "".join(b[j1:j2])
        if op == "equal":
            left.append(escape(old_part))
            right.append(escape(new_part))
            continue
        if old_part:
            out.removed.extend(t for t in a[i1:i2] if t.strip())
            left.append(f'<span style="background-color:{tints.word_removed}">{escape(old_part)}</span>')
        if new_part:
            out.added.extend(t for t in b[j1:j2] if t.strip())
            right.append(f'<span style="background-color:{tints.word_added}">{escape(new_part)}</span>')
    return "".join(left), "".join(right)


def _row(mark: str, html: str, background: str | None, colors: Colors) -> str:
    bg = f' bgcolor="{background}"' if background else ""
    return (
        f'<tr><td{bg} nowrap style="color:{colors.muted}">{mark or "&nbsp;"}</td>'
        f'<td{bg} width="100%"><span style="white-space:pre-wrap">{html or "&nbsp;"}</span></td></tr>'
    )


def render_word_diff(unified: str, colors: Colors, *, empty_text: str = "No differences.") -> WordDiff:
    """The unified diff `unified` as an HTML table: context plain, removed and added lines
    tinted, and within a removed/added pair the changed words tinted strongly."""
    tints = _Tints.of(colors)
    out = WordDiff(html="")
    rows: list[str] = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        pairs = min(len(removed), len(added))
        shown = [_words(removed[i], added[i], tints, out) for i in range(pairs)]
        for i, line in enumerate(removed):
            html = shown[i][0] if i < pairs else escape(line)
            rows.append(_row("-", html, tints.line_removed, colors))
        for i, line in enumerate(added):
            html = shown[i][1] if i < pairs else escape(line)
            rows.append(_row("+", html, tints.line_added, colors))
        removed.clear()
        added.clear()

    lines = unified.splitlines()
    for line in lines[:MAX_LINES]:
        if line.startswith(("---", "+++")) and not removed and not added:
            continue  # the file names: the tab already says which version is which
        if line.startswith("@@"):
            flush()
            rows.append(_row("", f'<span style="color:{colors.muted}">{escape(line)}</span>', None, colors))
        elif line.startswith("-"):
            if added:
                flush()
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            flush()
            rows.append(_row("", escape(line[1:] if line.startswith(" ") else line), None, colors))
    flush()
    if len(lines) > MAX_LINES:
        note = f"… {len(lines) - MAX_LINES:,} more diff lines not shown"
        rows.append(_row("", f'<span style="color:{colors.muted}">{note}</span>', None, colors))
    if not rows:
        out.empty = True
        rows.append(_row("", f'<span style="color:{colors.muted}">{escape(empty_text)}</span>', None, colors))
    out.html = (
        f'<html><body style="color:{colors.text}; background-color:{colors.base}">'
        '<table cellspacing="0" cellpadding="1" width="100%" style="font-family:monospace">'
        + "".join(rows)
        + "</table></body></html>"
    )
    return out


def new_file_diff(text: str, label: str) -> str:
    """A unified diff showing all of `text` as added (a record's first known version)."""
    return "".join(difflib.unified_diff([], text.splitlines(keepends=True), "/dev/null", label))
