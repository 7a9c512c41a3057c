"""When a claim or relationship counts as current: half-open validity windows.

A record's own window comes from its validity and expiry fields; the window
the projections store is that one met with the windows of everything the
record depends on (see `eligibility`). Bounds are UTC text in one fixed
format, so comparing the text compares the instants.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from knowledge_desktop.engine.records import dates

Window = tuple[str | None, str | None]
"""(inclusive start, exclusive end) as comparable UTC text; None is unbounded."""

NO_WINDOW: Window = (None, None)


def own_window(data: dict[str, Any]) -> Window:
    """A claim's or relationship's validity and expiry as one half-open window.

    valid_from is inclusive, valid_until exclusive, and expires_at is the
    last instant the assertion is active (spec: Optional assertion fields).
    """

    def stamp(key: str, after: bool = False) -> str | None:
        value = data.get(key)
        if not isinstance(value, str):
            return None
        try:
            instant = dates.parse_timestamp(value, utc_only=True)
        except dates.DateFormatError:
            return None
        if after:
            instant += timedelta(microseconds=1)
        return instant.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    ends = [e for e in (stamp("valid_until"), stamp("expires_at", after=True)) if e]
    return stamp("valid_from"), min(ends) if ends else None


def intersect(a: Window, b: Window) -> Window:
    """The part of time both windows cover (start after end when they do not meet)."""
    starts = [s for s in (a[0], b[0]) if s]
    ends = [e for e in (a[1], b[1]) if e]
    return (max(starts) if starts else None, min(ends) if ends else None)
