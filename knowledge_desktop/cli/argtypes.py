"""Argument types of `knowledge`: every number and date is checked before anything uses it.

An argument past what SQLite or `datetime` can hold (`--offset 99999999999999999999`,
`--at 9999-12-31`, whose end of day is in year 10000) used to reach them and come back
as a traceback. Each type here refuses such a value while argparse reads the command
line, so it is a usage error: one line, exit 2 (`dispatch._Parser.error`), before the vault
is even opened. The ranges the engine checks itself (a search's limit of 1–50, say) are
repeated here only where the command states them, so both say the same thing.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

INT64_MAX = 2**63 - 1
"""The largest integer SQLite stores: ids and offsets past it cannot be compared with a row."""
MAX_OFFSET = 1_000_000_000
"""The largest `--offset`: far past any vault's rows (an offset past the last row is an empty
page), and far below SQLite's limit."""
MIN_YEAR, MAX_YEAR = 1001, 9998
"""Years a date argument may name. Python's dates end at year 9999, and a date argument
stands for a span (the end of that day, a week, a time zone's offset), so the last year is
kept one short of that. Stored times are written with four-digit years, which the C
library's `strftime` does not pad below year 1000, and the span of a date in year 1000 can
reach back into 999 (the week of 1000-01-01 starts there), so the first year is 1001."""

_INTEGER = re.compile(r"[+-]?\d+")
_LEADING_YEAR = re.compile(r"([+-]?)(\d+)-")


def integer(low: int, high: int, what: str = "a number") -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (`what` names it in the error)."""

    def parse(text: str) -> int:
        stripped = text.strip()
        if not _INTEGER.fullmatch(stripped) or len(stripped) > 30:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number from {low} to {high:,}")
        value = int(stripped)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high:,}, not {stripped}")
        return value

    return parse


offset = integer(0, MAX_OFFSET, "an offset")
"""`--offset N`: rows skipped."""
journal_id = integer(1, INT64_MAX, "a journal id")
"""A journal entry's id (`undo JOURNAL_ID`)."""


def limit(high: int) -> Callable[[str], int]:
    """`--limit N` of a command that answers at most `high` rows at a time."""
    return integer(1, high, "a limit")


def when(text: str) -> str:
    """A date or date-time argument (`--since`, `--at`, `chronicle day DATE`, ...).

    The text is kept as given, since the engine reads it (and some of these options
    also take a commit or `now`); refused here is only a value that starts like a date
    (`YYYY-…`) whose year no date can hold, such as `0000-00-00` or `9999-12-31`, and
    text with a NUL, which no file name, date or commit holds."""
    if "\x00" in text:
        raise argparse.ArgumentTypeError("an argument cannot hold a NUL character")
    match = _LEADING_YEAR.match(text.strip())
    if match is not None:
        sign, digits = match.groups()
        if sign or len(digits) > 4 or not MIN_YEAR <= int(digits) <= MAX_YEAR:
            raise argparse.ArgumentTypeError(
                f"{text!r}: dates must fall in the years {MIN_YEAR:04d} to {MAX_YEAR}"
            )
    return text
