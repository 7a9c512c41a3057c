"""The Diagnostics pane's rows as SQL: filter, sort, count and page (issue 26 §3).

A million-record vault has about 110,000 findings; holding them all in the window
cost 40 MB as objects and 131 MB more prepared for filtering and sorting. Here the
`diagnostics` projection answers instead: the pane asks for totals, for how many rows
pass its filter, and for one page at a time in its sort order, so it holds only
the rows it has shown.

Two kinds of rows are not in the projection: the vault's own findings (interrupted
writes, the state of `state.sqlite`) and the "possible duplicates" rows made from
merge candidates. They are few, computed once per `DiagnosticsTable`, and joined to
the projection's rows as a JSON parameter, so every query sees one table.

The order matches what the pane always did: one column's key, then a tie-break over
every field (severity rank, path, line, code, message, record), all ascending or all
descending, so equal keys only ever mean identical findings. Text compares as Python
`casefold` does (a function registered on the connection), not as SQLite's ASCII-only
`NOCASE`. The notes' `plain-note` rows are a section of their own (`notes=True`):
the pane lists them after the others, under one group row.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowledge_desktop.engine.diagnostics import Diagnostic, Severity

PLAIN_NOTE = "plain-note"
SORTS = ("severity", "code", "path", "line", "record", "message")

_RANK = "(CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END)"
_TIE_BREAK = (_RANK, "path", "coalesce(line, 0)", "code", "message", "coalesce(record_id, '')")
_PRIMARY = {
    "severity": _RANK,
    "code": "code",
    "path": "kd_fold(path)",
    "line": "coalesce(line, -1)",
    "record": "kd_fold(coalesce(record_id, ''))",
    "message": "kd_fold(message)",
}
_HAYSTACK = "kd_fold(code || char(10) || path || char(10) || coalesce(record_id, '') || char(10) || message)"
_COLUMNS = ("path", "code", "severity", "line", "record_id", "message")
_ROWS = (
    "WITH extra(path, code, severity, line, record_id, message) AS ("
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),"
    " json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]')"
    " FROM json_each(?)),"
    " found AS (SELECT path, code, severity, line, record_id, message FROM diagnostics"
    " UNION ALL SELECT * FROM extra)"
)
"""Every finding as one table, `found`; the parameter is the extra rows as JSON."""


@dataclass(frozen=True, slots=True)
class DiagnosticsView:
    """What the pane shows: which findings (severities, one code, words) in which order."""

    words: tuple[str, ...] = ()
    """Casefolded; each must appear in the code, path, record id or message."""
    severities: frozenset[Severity] = frozenset(Severity)
    code: str = ""
    sort: str = "severity"
    descending: bool = False

    @staticmethod
    def of(text: str = "", **kwargs: Any) -> DiagnosticsView:
        return DiagnosticsView(words=tuple(text.casefold().split()), **kwargs)


Resume = tuple[object, ...]
"""Where a page ended: its last row's sort keys and row id, to read the next page from."""


@dataclass(frozen=True, slots=True)
class Page:
    rows: list[Diagnostic]
    last: Resume | None
    """Where this page ended (`page(after=…)` reads on from there); None when empty."""


@dataclass(frozen=True, slots=True)
class Shown:
    """How many findings pass the view's filter: the problems, and the notes' rows."""

    problems: int
    notes: int


@dataclass(frozen=True, slots=True)
class Totals:
    """Every finding counted whatever the filter (the pane's toggles and code picker)."""

    severities: dict[Severity, int] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)


def _fold(value: object) -> str:
    return str(value).casefold() if value is not None else ""


class DiagnosticsTable:
    """The findings of one moment of a vault, read in pages; safe on any thread whose
    `connect()` gives that thread's connection (the store's readers)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], extra: Sequence[Diagnostic] = ()) -> None:
        self._connect = connect
        self.at_once = False
        """True for a table in memory: quick enough to read on any thread, the UI's included."""
        self._extra = json.dumps(
            [[d.path, d.code, d.severity.value, d.line, d.record_id, d.message] for d in extra]
        )

    @staticmethod
    def in_memory(items: Sequence[Diagnostic]) -> DiagnosticsTable:
        """A table holding exactly `items` (a list given whole, as tests and a few callers have)."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(
            "CREATE TABLE diagnostics (path TEXT NOT NULL, code TEXT NOT NULL, severity TEXT NOT NULL,"
            " line INTEGER, record_id TEXT, message TEXT NOT NULL)"
        )
        conn.executemany(
            "INSERT INTO diagnostics VALUES (?, ?, ?, ?, ?, ?)",
            [(d.path, d.code, d.severity.value, d.line, d.record_id, d.message) for d in items],
        )
        table = DiagnosticsTable(lambda: conn)
        table.at_once = True
        return table

    def _conn(self) -> sqlite3.Connection:
        conn = self._connect()
        conn.create_function("kd_fold", 1, _fold, deterministic=True)
        return conn

    def totals(self) -> Totals:
        severities = dict.fromkeys(Severity, 0)
        codes: dict[str, int] = {}
        for code, severity, count in self._conn().execute(
            f"{_ROWS} SELECT code, severity, count(*) FROM found GROUP BY code, severity", (self._extra,)
        ):
            severities[Severity(severity)] += count
            codes[code] = codes.get(code, 0) + count
        return Totals(severities, dict(sorted(codes.items())))

    def shown(self, view: DiagnosticsView) -> Shown:
        where, params = _where(view)
        notes, total = (
            self._conn()
            .execute(
                f"{_ROWS} SELECT coalesce(sum(code = ?), 0), count(*) FROM found WHERE {where}",
                (self._extra, PLAIN_NOTE, *params),
            )
            .fetchone()
        )
        return Shown(total - notes, notes)

    def page(
        self, view: DiagnosticsView, *, notes: bool, offset: int, limit: int, after: Resume | None = None
    ) -> Page:
        """Rows of one section (the notes' rows, or every other) in the view's order: those
        after `after` (where the previous page ended) when given, else from `offset`.

        Reading on from `after` costs one scan that keeps the best `limit` rows past it,
        at any depth; an `OFFSET` would sort and walk past every row before the page
        (at 110,000 findings, 1.2–2.3 s 90,000 rows down instead of 40–140 ms). An index
        on the default order did not help: the scan then fetches every row it passes.
        The projection's rows and the extra ones are two arms of one UNION ALL.
        """
        where, params = _where(view, notes)
        keys = _keys(view)
        names = [f"k{i}" for i in range(len(keys) + 1)]
        bound = ""
        bound_params: list[object] = []
        if after is not None:
            beyond = "<" if view.descending else ">"
            bound = f" AND ({', '.join([*keys, '{id}'])}) {beyond} ({', '.join('?' * len(after))})"
            bound_params = list(after)
        named = ", ".join(f"{k} AS {n}" for k, n in zip([*keys, "{id}"], names, strict=True))
        arm = f"{', '.join(_COLUMNS)}, {named}"
        extra = (
            "(SELECT json_extract(value, '$[0]') AS path, json_extract(value, '$[1]') AS code,"
            " json_extract(value, '$[2]') AS severity, json_extract(value, '$[3]') AS line,"
            " json_extract(value, '$[4]') AS record_id, json_extract(value, '$[5]') AS message,"
            " -1 - key AS id FROM json_each(?))"
        )
        direction = " DESC" if view.descending else ""
        projection = f"{arm} FROM diagnostics WHERE {where}{bound}".replace("{id}", "rowid")
        extras = f"{arm} FROM {extra} WHERE {where}{bound}".replace("{id}", "id")
        order = ", ".join(n + direction for n in names)
        sql = f"SELECT {projection} UNION ALL SELECT {extras} ORDER BY {order} LIMIT ?"
        args: list[object] = [*params, *bound_params, self._extra, *params, *bound_params, limit]
        if after is None:
            sql += " OFFSET ?"
            args.append(offset)
        rows = self._conn().execute(sql, args).fetchall()
        found = [
            Diagnostic(code, Severity(sev), path, line, rid, text)
            for path, code, sev, line, rid, text, *_ in rows
        ]
        return Page(found, tuple(rows[-1][len(_COLUMNS) :]) if rows else after)

    def position(self, view: DiagnosticsView, d: Diagnostic) -> int | None:
        """The row of `d` in its section under the view, or None when the filter hides it
        or it is gone: how far the pane must read to show it."""
        where, params = _where(view, d.code == PLAIN_NOTE)
        me = (d.path, d.code, d.severity.value, d.line, d.record_id, d.message)
        conn = self._conn()
        found = conn.execute(
            f"{_ROWS} SELECT 1 FROM found WHERE {where} AND path=? AND code=? AND severity=?"
            " AND line IS ? AND record_id IS ? AND message=? LIMIT 1",
            (self._extra, *params, *me),
        ).fetchone()
        if found is None:
            return None
        keys = _keys(view)
        before = "<" if not view.descending else ">"
        mine = ", ".join(keys)
        (count,) = conn.execute(
            f"{_ROWS}, me({', '.join(_COLUMNS)}) AS (VALUES (?, ?, ?, ?, ?, ?))"
            f" SELECT count(*) FROM found WHERE {where}"
            f" AND ({mine}) {before} (SELECT {mine} FROM me)",
            (self._extra, *me, *params),
        ).fetchone()
        return int(count)


def _keys(view: DiagnosticsView) -> list[str]:
    primary = _PRIMARY[view.sort]
    return [primary, *(key for key in _TIE_BREAK if key != primary)]


def _order(view: DiagnosticsView) -> str:
    return ", ".join(f"{key}{' DESC' if view.descending else ''}" for key in _keys(view))


def _where(view: DiagnosticsView, notes: bool | None = None) -> tuple[str, list[object]]:
    parts: list[str] = []
    params: list[object] = []
    chosen = sorted(s.value for s in view.severities)
    parts.append(f"severity IN ({', '.join('?' * len(chosen))})" if chosen else "0")
    params.extend(chosen)
    if view.code:
        parts.append("code = ?")
        params.append(view.code)
    if notes is not None:
        parts.append("code = ?" if notes else "code != ?")
        params.append(PLAIN_NOTE)
    for word in view.words:
        parts.append(f"instr({_HAYSTACK}, ?) > 0")
        params.append(word)
    return " AND ".join(parts), params
