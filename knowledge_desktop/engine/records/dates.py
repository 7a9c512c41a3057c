"""The date and timestamp forms the record format allows.

Spec (records-and-ontology, Optional assertion fields): occurrence and due
values are a real `YYYY-MM-DD` date or a timestamp with seconds and an
explicit `Z` or numeric offset; no midnight or zone is ever inferred.
Envelope times, validity and expiry are UTC timestamps. Values are kept as
the text the author wrote; these helpers only judge and interpret it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$")


class DateFormatError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Instant:
    """A judged date value: an exact instant, or a whole date without a zone."""

    start: datetime
    """For a date: midnight UTC of that day (used only to order and to overlap)."""
    end: datetime
    """Exclusive end: the instant itself plus a microsecond, or the next UTC midnight."""
    date_only: bool


def parse_date(text: str) -> date:
    match = _DATE.match(text)
    if not match:
        raise DateFormatError(f"{text!r} is not a YYYY-MM-DD date")
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        raise DateFormatError(f"{text!r} is not a real calendar date") from None


def parse_timestamp(text: str, *, utc_only: bool = False) -> datetime:
    match = _TIMESTAMP.match(text)
    if not match:
        zone_hint = "Z" if utc_only else "Z or a numeric offset"
        raise DateFormatError(
            f"{text!r} is not a timestamp with seconds and {zone_hint} (e.g. 2026-09-28T18:30:00Z)"
        )
    day, hh, mm, ss, frac, zone = match.groups()
    if utc_only and zone not in ("Z", "+00:00"):
        raise DateFormatError(f"{text!r} must be in UTC (end with Z)")
    micro = (frac or ".0")[1:7].ljust(6, "0")
    try:
        parsed = datetime.fromisoformat(f"{day}T{hh}:{mm}:{ss}.{micro}{'+00:00' if zone == 'Z' else zone}")
    except ValueError:
        raise DateFormatError(f"{text!r} is not a real date and time") from None
    return parsed.astimezone(UTC)


def parse_date_or_timestamp(text: str) -> Instant:
    if _DATE.match(text):
        day = parse_date(text)
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return Instant(start, start + timedelta(days=1), True)
    instant = parse_timestamp(text)
    return Instant(instant, instant + timedelta(microseconds=1), False)


def utc_now_text() -> str:
    """Now, in the form the app writes: UTC, milliseconds, Z (ARCHITECTURE.md)."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
