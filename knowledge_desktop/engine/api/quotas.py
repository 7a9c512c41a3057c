"""Write limits of extensions (spec: facts-entities-collections-api, "Write rules").

- Daily quotas, per extension and *local* date: 500 writes, and 50 million
  characters of text (200 million with `collections.bulk`). Kept in the durable
  table `extension_quota_v1`, so neither a restart nor a reinstall resets them;
  a person cannot change them (the spec makes them a safeguard, not a setting).
  `Quotas.charge` checks and counts in one write transaction, so two processes
  writing for one extension cannot both slip under the limit.
- Single-write limits: body 5 million characters, title and names 1000, `meta`
  and a fact's value 64 KB as JSON (`check_single_write`).

The clock is injectable: tests (and a day that changes mid-run) decide what
"today" is without waiting for midnight.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from knowledge_desktop.engine.api.json_shape import depth_problem
from knowledge_desktop.engine.errors import QuotaExceeded, WriteTooLarge
from knowledge_desktop.engine.store.db import Store

DAILY_WRITES = 500
DAILY_CHARS = 50_000_000
DAILY_CHARS_BULK = 200_000_000
MAX_BODY_CHARS = 5_000_000
MAX_TITLE_CHARS = 1000
"""Also an entity's display name, an identifier's value and a collection's name."""
MAX_JSON_BYTES = 64 * 1024
"""`meta` and a fact's value, serialized as JSON (UTF-8)."""


def local_now() -> datetime:
    return datetime.now().astimezone()


def local_day(moment: datetime) -> str:
    """The local date of `moment` (`YYYY-MM-DD`); a naive moment is taken as local time."""
    return (moment if moment.tzinfo is None else moment.astimezone()).date().isoformat()


@dataclass(frozen=True, slots=True)
class Usage:
    """What an extension has written on `day`, and what it may write in all."""

    day: str
    writes: int
    chars: int
    max_writes: int
    max_chars: int


class Quotas:
    """Daily write counters of the extensions of one vault."""

    def __init__(self, store: Store, clock: Callable[[], datetime] = local_now) -> None:
        self.store = store
        self.clock = clock

    def usage(self, name: str, *, bulk: bool = False) -> Usage:
        day = local_day(self.clock())
        row = (
            self.store.reader()
            .execute("SELECT writes, chars FROM extension_quota_v1 WHERE name=? AND day=?", (name, day))
            .fetchone()
        )
        writes, chars = (int(row[0]), int(row[1])) if row else (0, 0)
        return Usage(day, writes, chars, DAILY_WRITES, DAILY_CHARS_BULK if bulk else DAILY_CHARS)

    def charge(self, name: str, chars: int, *, bulk: bool = False) -> Usage:
        """Count one write of `chars` characters for `name` today, or raise `QuotaExceeded`
        (counting nothing) when it would pass either daily limit. `bulk`: the extension holds
        `collections.bulk`."""
        if chars < 0:
            raise ValueError("a write has zero or more characters")
        day = local_day(self.clock())
        limit = DAILY_CHARS_BULK if bulk else DAILY_CHARS
        with self.store.write() as w:
            row = w.execute(
                "SELECT writes, chars FROM extension_quota_v1 WHERE name=? AND day=?", (name, day)
            ).fetchone()
            writes, used = (int(row[0]), int(row[1])) if row else (0, 0)
            if writes + 1 > DAILY_WRITES:
                raise QuotaExceeded(
                    f"extension {name} is over its daily write quota: {DAILY_WRITES} writes"
                    f" on {day} (local date)"
                )
            if used + chars > limit:
                raise QuotaExceeded(
                    f"extension {name} is over its daily character quota: {used:,} of {limit:,} characters"
                    f" written on {day}, and this write has {chars:,}"
                )
            w.execute("DELETE FROM extension_quota_v1 WHERE name=? AND day<>?", (name, day))
            w.execute(
                "INSERT INTO extension_quota_v1(name, day, writes, chars) VALUES (?, ?, 1, ?)"
                " ON CONFLICT(name, day) DO UPDATE SET writes=writes+1, chars=chars+excluded.chars",
                (name, day, chars),
            )
        return Usage(day, writes + 1, used + chars, DAILY_WRITES, limit)


def json_size(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def check_single_write(
    *,
    title: str | None = None,
    body: str | None = None,
    meta: Any = None,
    value: Any = None,
    name: str | None = None,
) -> None:
    """`WriteTooLarge` naming the first field over its single-write limit."""
    for label, text, limit in (
        ("title", title, MAX_TITLE_CHARS),
        ("name", name, MAX_TITLE_CHARS),
        ("body", body, MAX_BODY_CHARS),
    ):
        if text is not None and len(text) > limit:
            raise WriteTooLarge(f"the {label} has {len(text):,} characters; the limit is {limit:,}")
    for label, data in (("meta", meta), ("value", value)):
        if data is not None:
            problem = depth_problem(label, data)
            if problem:
                raise WriteTooLarge(problem)
            try:
                size = json_size(data)
            except (TypeError, ValueError) as exc:
                raise WriteTooLarge(f"the {label} is not JSON ({exc})") from exc
            if size > MAX_JSON_BYTES:
                raise WriteTooLarge(f"the {label} is {size:,} bytes as JSON; the limit is {MAX_JSON_BYTES:,}")
