"""`knowledge`: the engine from a terminal, with JSON output for scripts and CI.

Every command opens the vault, reconciles it (so answers reflect the files
as they are now), and prints either a short human summary or, with
`--json`, the documented JSON shape. Exit codes: 0 ok, 2 usage error or not
a vault (one line on stderr, no traceback), 3 when `diagnostics --fail-on`
finds something at or above the given severity, 4 when a write is rejected
by a fence or a rule (`{"error": {"code", "message", "current"}}` on stdout
with `--json`; nothing was written), 5 when a write failed part-way on the
disk or the database (the journal says what stays; `knowledge resume`), 6
when the vault's state cannot be used (`state.sqlite` locked by another
program, the disk full, the vault folder or `.knowledge/` gone while running;
one line, no traceback). A damaged `state.sqlite` met while a command runs is
set aside and rebuilt, and the command answers (exit 0) with a
`state-repaired` or `state-damaged` line on stderr (docs/decisions.md). The
write commands and their receipts are documented in docs/writing.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from knowledge_desktop import (
    cli_adopt,
    cli_args,
    cli_changes,
    cli_entities,
    cli_extensions,
    cli_history,
    cli_lifecycle,
    cli_mcp,
    cli_self,
    cli_versions,
)
from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.errors import KnownError, QueryError, StateError, VaultGone
from knowledge_desktop.engine.query.grep_query import GrepQuery
from knowledge_desktop.engine.query.inventory import LIFECYCLE_FILTERS, RecordFilter
from knowledge_desktop.engine.query.merge_candidates import as_text as merge_candidates_text
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.report import diagnostics_report
from knowledge_desktop.engine.store.projections.keyword import TIME_FIELDS
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.vault_state import incident_finding
from knowledge_desktop.engine.visible_text import block, json_text, one_line
from knowledge_desktop.engine.write.plan import Fence, WriteRejected
from knowledge_desktop.engine.write.publish import WriteFailed

EXIT_OK, EXIT_USAGE, EXIT_FINDINGS, EXIT_REJECTED, EXIT_WRITE_FAILED, EXIT_STATE = 0, 2, 3, 4, 5, 6


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, no usage dump
        sys.stderr.write(f"knowledge: {message}\n")
        raise SystemExit(EXIT_USAGE)


_safe = one_line
"""Every field of vault content or of a file name on a human line goes through this (the
body of `show`, multi-line, through `block`): control characters (ESC, BEL, CR, a newline
in a file name, C1 bytes) and bidirectional controls are shown as escapes, so nothing
drives the terminal and each listed row is one line. JSON output stays exact (`json_text`)."""


def _emit(args: argparse.Namespace, payload: Any, human: Callable[[], str]) -> None:
    if args.json:
        sys.stdout.write(json_text(payload) + "\n")
    else:
        sys.stdout.write(human() + "\n")


def cmd_scan(vault: Vault, args: argparse.Namespace) -> int:
    change = vault.last_scan
    text_ms: float | None = None
    if args.index_text:
        started = time.perf_counter()
        vault.index_keywords()
        text_ms = round((time.perf_counter() - started) * 1000, 1)
    counts = vault.counts()
    # issue 15: the first checkpoint (every file as found), then the outside edits found
    baseline = vault.history.ensure_baseline()
    observed = vault.history.flush_observed()
    payload = {
        **counts,
        "elapsedMs": round(change.elapsed_ms, 1) if change else None,
        "parsed": change.parsed if change else 0,
        "vault": vault.info(),
        "checkpoint": {"baseline": baseline, "observed": observed},
    }
    if text_ms is not None:
        payload["textIndexMs"] = text_ms

    def human() -> str:
        sev = counts["diagnostics"]
        return (
            f"{_safe(vault.root)}\n  {counts['records']} records ({counts['valid']} valid, "
            f"{counts['invalid']} invalid, {counts['eligible']} current), "
            f"{counts['unrecognized']} unrecognized files\n"
            f"  diagnostics: {sev['error']} errors, {sev['warning']} warnings, "
            f"{sev['info']} info\n  scopes: {', '.join(map(_safe, counts['scopes'])) or '-'}\n"
            f"  parsed {payload['parsed']} files in {payload['elapsedMs']} ms"
            + (f"\n  search text indexed in {text_ms} ms" if text_ms is not None else "")
        )

    _emit(args, payload, human)
    return EXIT_OK


def _add_record_filters(p: argparse.ArgumentParser) -> None:
    """The filters records, grep and lookup share (spec: retrieval, Query contract)."""
    p.add_argument("--kind", choices=("page", "claim", "relationship"))
    p.add_argument("--type", help="ontology type; aliases expand")
    p.add_argument("--tag", help="exact, case-sensitive tag")
    p.add_argument("--lifecycle", choices=LIFECYCLE_FILTERS, default="active")
    p.add_argument("--scope", help="partition name")


def _record_filter(args: argparse.Namespace, include_ineligible: bool = False) -> RecordFilter:
    return RecordFilter(
        kind=args.kind,
        types=frozenset([args.type]) if args.type else None,
        tag=args.tag,
        lifecycle=args.lifecycle,
        scope=args.scope,
        include_ineligible=include_ineligible,
    )


def cmd_records(vault: Vault, args: argparse.Namespace) -> int:
    f = _record_filter(args, args.include_ineligible)
    result = vault.records(f, limit=args.limit, offset=args.offset)

    def human() -> str:
        lines = [
            f"{_safe(i['id'] or '-'):<28} {_safe(i['kind'] or '-'):<12} {_safe(i['type'] or '-'):<14} "
            f"{'' if i['valid'] else '[invalid] '}{_safe(i['title'])}  ({_safe(i['path'])})"
            for i in result["items"]
        ]
        more = f" — next: --offset {result['nextOffset']}" if result["nextOffset"] else ""
        return "\n".join([*lines, f"{result['total']} records{more}"])

    _emit(args, result, human)
    return EXIT_OK


def cmd_show(vault: Vault, args: argparse.Namespace) -> int:
    if args.at is not None:
        return cli_versions.show_at(vault, args)
    record = vault.show(args.target)

    def human() -> str:
        out = [
            f"{_safe(record['title'])}  [{_safe(record['kind'])}/{_safe(record['type'])}]  "
            f"{_safe(record['lifecycle'])}",
            f"id {_safe(record['id'])}  revision {record['revision']}  {_safe(record['path'])}",
        ]
        if not record["valid"]:
            out.append("INVALID")
        out += ["", block((record["body"] or "").rstrip()), ""]
        if record["references"]:
            out.append("References:")
            out += [
                f"  line {r['line']}: {_safe(r['target'])} -> {_safe(r['id'] or r['status'])}"
                for r in record["references"]
            ]
        if record["backlinks"]:
            out.append("Backlinks:")
            out += [
                f"  {_safe(b['title'])} ({_safe(b['path'])}"
                f"{':' + str(b['line']) if b['line'] else ''}, {_safe(b['via'])})"
                for b in record["backlinks"]
            ]
        if record["diagnostics"]:
            out.append("Diagnostics:")
            out += [
                f"  {d['severity']} {d['code']} line {d['line']}: {_safe(d['message'])}"
                for d in record["diagnostics"]
            ]
        return "\n".join(out)

    _emit(args, record, human)
    return EXIT_OK


def cmd_diagnostics(vault: Vault, args: argparse.Namespace) -> int:
    items = vault.diagnostics()
    candidates = vault.merge_candidates()
    fmt = args.format or ("json" if args.json else None)
    if fmt is None:
        text = "\n".join(
            f"{d.severity.value:<7} {d.code:<26} {_safe(d.path)}"
            f"{':' + str(d.line) if d.line else ''}  {_safe(d.message)}"
            for d in items
        )
        c = diagnostics_report.counts(items)["bySeverity"]
        text += ("\n" if text else "") + (f"{c['error']} errors, {c['warning']} warnings, {c['info']} info")
        if candidates:
            text += f"\n\nPossible duplicates ({len(candidates)}):\n" + merge_candidates_text(candidates)
        text += "\n"
    else:
        text = diagnostics_report.render(
            items, fmt, vault=str(vault.root), generated_at=utc_now_text(), merge_candidates=candidates
        )
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.fail_on:
        threshold = dg.SEVERITY_RANK[dg.Severity(args.fail_on)]
        if any(dg.SEVERITY_RANK[d.severity] <= threshold for d in items):
            return EXIT_FINDINGS
    return EXIT_OK


def cmd_ontology(vault: Vault, args: argparse.Namespace) -> int:
    views = vault.ontology(args.scope)
    view = args.view
    if view == "sources":
        payload: Any = [
            {k: v[k] for k in ("scope", "name", "version", "fingerprint", "chain", "borrowed")} for v in views
        ]
    elif view == "diagnostics":
        payload = [{k: v[k] for k in ("scope", "active", "issues")} for v in views]
    else:
        payload = views

    def human() -> str:
        out = []
        for v in views:
            state = "active" if v["active"] else "NOT ACTIVE"
            out.append(f"[{_safe(v['scope'])}] {_safe(v['name'])}@{_safe(v['version'])} {state}")
            if v["fingerprint"]:
                out.append(f"  fingerprint {_safe(v['fingerprint'])}")
            out.append("  chain: " + " → ".join(_safe(c["name"]) for c in v["chain"]))
            if view == "definitions":
                pages = [_safe(d["name"]) for d in v["definitions"] if d["kind"] == "page"]
                rels = [_safe(d["name"]) for d in v["definitions"] if d["kind"] == "relationship"]
                out.append(f"  {len(pages)} page types: {', '.join(pages)}")
                out.append(f"  {len(rels)} relationships: {', '.join(rels)}")
            for issue in v["issues"]:
                out.append(
                    f"  {'error' if issue['fatal'] else 'warning'}: {_safe(issue['path'])}"
                    f"{':' + str(issue['line']) if issue['line'] else ''} "
                    f"{_safe(issue['message'])}"
                )
        return "\n".join(out)

    _emit(args, payload, human)
    return EXIT_OK


def cmd_grep(vault: Vault, args: argparse.Namespace) -> int:
    q = GrepQuery(
        args.query,
        mode=args.mode,
        kind=args.kind,
        types=frozenset([args.type]) if args.type else None,
        tag=args.tag,
        lifecycle=args.lifecycle,
        time_field=args.time_field,
        since=args.since,
        until=args.until,
        limit=args.limit,
        offset=args.offset,
    )
    result = vault.grep(q, args.scope)

    def human() -> str:
        out = []
        for hit in result["hits"]:
            score = f"{hit['score']:.2f}" if hit["score"] is not None else "via " + _safe(hit["via"]["id"])
            out.append(f"{score:>8}  {_safe(hit['title'])}  [{_safe(hit['type'])}]  {_safe(hit['path'])}")
            snippet = _safe(" ".join(hit["snippet"]["text"].split())[:160])
            out.append(f"          {snippet}")
        more = f" — next: --offset {result['nextOffset']}" if result["nextOffset"] else ""
        return "\n".join([*out, f"{result['total']} hits{more}"])

    _emit(args, result, human)
    return EXIT_OK


def cmd_lookup(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.lookup(args.query, _record_filter(args))

    def human() -> str:
        if result["status"] == "found":
            r = result["record"]
            return f"found: {_safe(r['id'])}  {_safe(r['title'])}  ({_safe(r['path'])})"
        if result["status"] == "ambiguous":
            return "ambiguous:\n" + "\n".join(
                f"  {_safe(c['id'])}  {_safe(c['title'])}  ({_safe(c['path'])})" for c in result["candidates"]
            )
        return "missing"

    _emit(args, result, human)
    return EXIT_OK


def _timeline_human(result: dict[str, Any]) -> str:
    lines = []
    for item in result["items"]:
        if "source" in item:
            lines.append(
                f"{_safe(item['value']):<26} {_safe(item['source']['title'])} — {item['claims']} claims"
                f"{': ' + _safe(' '.join((item['summary'] or '').split())[:100]) if item['summary'] else ''}"
            )
        else:
            shown = _safe(item.get("local") or item["value"])
            lines.append(
                f"{shown:<26} {_safe(item['type'] or item['kind']):<12} "
                f"{_safe(item.get('title') or item['path'])}"
            )
    return "\n".join(lines) or "(nothing dated)"


def cmd_timeline(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.timeline(
        entity=args.entity,
        kind=args.kind,
        time_field=args.time_field,
        since=args.since,
        until=args.until,
        order=args.order,
        eligibility=args.eligibility,
        include_sources=args.include_sources,
        group=args.group,
        scope=args.scope,
        limit=args.limit,
        offset=args.offset,
        tz=args.tz,
    )
    _emit(args, result, lambda: _timeline_human(result))
    return EXIT_OK


def cmd_chronicle(vault: Vault, args: argparse.Namespace) -> int:
    if args.chronicle == "day":
        result = vault.chronicle_day(args.date, tz=args.tz, week=args.week, scope=args.scope)
    elif args.chronicle == "since":
        result = vault.chronicle_since(args.date, scope=args.scope)
    else:
        result = vault.last_seen(args.entity, on_or_before=args.on_or_before, scope=args.scope)
    _emit(args, result, lambda: _timeline_human(result))
    return EXIT_OK


# -- writing (docs/writing.md) ------------------------------------------------------------


def _read_from(source: str) -> str:
    """The text of `--from FILE` or `--from -` (stdin), bytes kept (no newline translation)."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        return data.decode("utf-8")
    except OSError as exc:
        raise QueryError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise QueryError(f"{source} is not UTF-8 text (byte {exc.start})") from None


def _fence(text: str) -> str:
    """A fence argument `ID:REVISION:HASH`; a malformed one is a usage error (exit 2)."""
    try:
        Fence.parse(text)
    except WriteRejected as exc:
        raise argparse.ArgumentTypeError(exc.message) from None
    return text


def _request_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "request_id": args.request_id,
        "actor": args.actor,
        "expected_vault_id": args.vault_id,
        "expected_ontology_fingerprint": getattr(args, "ontology_fingerprint", None),
    }


def _receipt(args: argparse.Namespace, receipt: dict[str, Any]) -> int:
    def human() -> str:
        items = ", ".join(
            f"{_safe(i['id'])} r{i['revision']} {_safe(i['path'])}" for i in receipt.get("items", [])
        )
        return (
            f"{_safe(receipt.get('operation', '?'))} published: {items or 'no files'} "
            f"(journal {receipt.get('journalId')}, request {_safe(receipt.get('requestId'))})"
        )

    _emit(args, receipt, human)
    return EXIT_OK


def cmd_new(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.new_record(_read_from(args.source), **_request_options(args)))


def cmd_save(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.save_page(args.fence, _read_from(args.source), **_request_options(args)))


def cmd_edit_body(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.edit_body(args.fence, _read_from(args.source), **_request_options(args)))


def cmd_resume(vault: Vault, args: argparse.Namespace) -> int:
    return _receipt(args, vault.resume(args.request_id, reviewed=args.reviewed))


def cmd_journal(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.journal(args.limit, args.offset)

    def human() -> str:
        lines = [
            f"{i['journalId']:>5}  {_safe(i['at'])}  {_safe(i['state']):<11} {_safe(i['operation']):<12} "
            f"{_safe(i['targetId'] or '-')}  by {_safe(i['actor'] or '-')}  ({_safe(i['requestId'])})"
            for i in result["items"]
        ]
        return "\n".join([*lines, f"{result['total']} entries"])

    _emit(args, result, human)
    return EXIT_OK


def _add_write_options(p: argparse.ArgumentParser, *, assertion: bool = False) -> None:
    p.add_argument("--request-id", help="idempotency key (default: a new one, printed in the receipt)")
    p.add_argument("--actor", help="who saves (default: the OS user)")
    p.add_argument("--vault-id", help="expected vault id (the manifest's expectedVaultId)")
    if assertion:
        p.add_argument(
            "--ontology-fingerprint",
            help="expected ontology fingerprint of the partition, for claims and relationships",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="knowledge", description="Read and write a knowledge-record-v1 vault.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(
        name: str, helptext: str, handler: Callable[[Vault, argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.add_argument("vault", help="the vault folder")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(handler=handler)
        return p

    p = command("scan", "Reconcile the vault and print counts.", cmd_scan)
    p.add_argument(
        "--index-text",
        action="store_true",
        help="also index the search text now (otherwise the first search does it)",
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="check every page of state.sqlite first, and repair it when damaged",
    )
    p = command("records", "List records (current ones by default).", cmd_records)
    _add_record_filters(p)
    p.add_argument(
        "--include-ineligible",
        action="store_true",
        help="also list invalid, duplicate, withdrawn, merged and hidden records",
    )
    p.add_argument("--limit", type=cli_args.limit(1000), default=100)
    p.add_argument("--offset", type=cli_args.offset, default=0)
    p = command("show", "Show one record by id or vault-relative path.", cmd_show)
    p.add_argument("target", metavar="ID|PATH")
    p.add_argument(
        "--at", metavar="COMMIT|DATE", type=cli_args.when, help="the record as it was then (cli_versions.py)"
    )
    p = command("diagnostics", "List or export diagnostics.", cmd_diagnostics)
    p.add_argument("--format", choices=diagnostics_report.FORMATS)
    p.add_argument("-o", "--output", help="write the report to this file")
    p.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        help="exit 3 when a diagnostic at or above this severity exists",
    )
    p = command("grep", "Keyword search (all words must match by default).", cmd_grep)
    p.add_argument("query")
    p.add_argument("--mode", choices=("all", "any", "phrase"), default="all")
    _add_record_filters(p)
    p.add_argument("--time-field", choices=TIME_FIELDS)
    p.add_argument("--since", type=cli_args.when)
    p.add_argument("--until", type=cli_args.when)
    p.add_argument("--limit", type=cli_args.limit(50), default=20)
    p.add_argument("--offset", type=cli_args.offset, default=0)
    p = command("lookup", "Exact lookup by id, title or alias.", cmd_lookup)
    p.add_argument("query")
    _add_record_filters(p)
    p = command("timeline", "Dated records, for the vault or one entity.", cmd_timeline)
    p.add_argument("--entity", help="entity (page) id")
    p.add_argument("--kind", help="exact record type, such as decision, event or meeting")
    p.add_argument("--time-field", choices=TIME_FIELDS, default="occurred_at")
    p.add_argument("--since", type=cli_args.when)
    p.add_argument("--until", type=cli_args.when)
    p.add_argument("--order", choices=("asc", "desc"), default="asc")
    p.add_argument("--eligibility", choices=("current", "include_inactive"), default="current")
    p.add_argument("--include-sources", action="store_true")
    p.add_argument("--group", choices=("source",))
    p.add_argument("--scope")
    p.add_argument("--tz", help="IANA time zone for displayed times")
    p.add_argument("--limit", type=cli_args.limit(500), default=50)
    p.add_argument("--offset", type=cli_args.offset, default=0)
    chronicle = sub.add_parser("chronicle", help="Day, since and last-seen views.")
    chron = chronicle.add_subparsers(dest="chronicle", required=True, parser_class=_Parser)
    for name, helptext in (
        ("day", "One day, or its Monday–Sunday week."),
        ("since", "Occurrences from a date until now, oldest first."),
        ("last-seen", "The latest dated context for an entity."),
    ):
        c = chron.add_parser(name, help=helptext, description=helptext)
        c.add_argument("vault")
        if name == "last-seen":
            c.add_argument("entity")
            c.add_argument("--on-or-before", type=cli_args.when)
        else:
            c.add_argument("date", help="YYYY-MM-DD", type=cli_args.when)
        if name == "day":
            c.add_argument("--week", action="store_true")
            c.add_argument("--tz", default="UTC")
        c.add_argument("--scope")
        c.add_argument("--json", action="store_true")
        c.set_defaults(handler=cmd_chronicle)
    p = command("new", "Create a page, claim or relationship from a record file.", cmd_new)
    p.add_argument("--from", dest="source", required=True, metavar="FILE.md|-")
    _add_write_options(p, assertion=True)
    p = command("save", "Replace a whole page file, fenced ID:REVISION:HASH.", cmd_save)
    p.add_argument("fence", metavar="FENCE", type=_fence)
    p.add_argument("--from", dest="source", required=True, metavar="FILE.md|-")
    _add_write_options(p)
    p = command("edit-body", "Replace only a page's body, fenced ID:REVISION:HASH.", cmd_edit_body)
    p.add_argument("fence", metavar="FENCE", type=_fence)
    p.add_argument("--from", dest="source", required=True, metavar="FILE|-")
    _add_write_options(p)
    p = command("resume", "Finish or roll back an interrupted request; its receipt.", cmd_resume)
    p.add_argument("request_id", metavar="REQUEST_ID")
    p.add_argument("--reviewed", action="store_true", help="mark the request's write conflict as reviewed")
    p = command("journal", "The write journal, newest first, with receipts.", cmd_journal)
    p.add_argument("--limit", type=cli_args.limit(1000), default=50)
    p.add_argument("--offset", type=cli_args.offset, default=0)
    helpers = cli_lifecycle.WriteHelpers(_fence, _add_write_options, _request_options, _receipt, _read_from)
    cli_lifecycle.register(command, helpers)
    cli_adopt.register(command, helpers)
    cli_history.register(command)
    cli_changes.register(command)
    cli_entities.register(sub, _Parser)
    cli_extensions.register(sub, _Parser)
    cli_mcp.register(sub, _Parser)
    cli_versions.register(command)
    cli_self.register(command)
    p = command("ontology", "Show each partition's active ontology.", cmd_ontology)
    p.add_argument("--view", choices=("definitions", "sources", "diagnostics"), default="definitions")
    p.add_argument("--scope", help="partition name")
    return parser


def _tell_repairs(vault: Vault) -> None:
    """One line on stderr for each damaged state.sqlite this run set aside and rebuilt, with
    its diagnostic (`state-repaired` or `state-damaged`), so a script sees it though the
    command answered (exit 0)."""
    for incident in vault.repairs:
        d = incident_finding(incident)
        sys.stderr.write(f"knowledge: {d.code}: {_safe(d.message)}\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        standalone = getattr(args, "standalone", None)
        if standalone is not None:  # a command whose positional is not a vault (`entities`)
            code: int = standalone(args)
        else:
            with Vault.open(args.vault) as vault:
                if getattr(args, "verify", False):
                    vault.verify()
                vault.repairing(vault.reconcile)
                try:
                    code = vault.repairing(lambda: args.handler(vault, args))
                finally:
                    _tell_repairs(vault)
        return code
    except (WriteRejected, WriteFailed) as exc:
        if getattr(args, "json", False):
            sys.stdout.write(json_text(exc.as_json()) + "\n")
        else:
            sys.stderr.write(f"knowledge: {_safe(exc.code)}: {_safe(exc.message)}\n")
        return EXIT_REJECTED if isinstance(exc, WriteRejected) else EXIT_WRITE_FAILED
    except (StateError, VaultGone) as exc:
        sys.stderr.write(f"knowledge: {_safe(exc)}\n")
        return EXIT_STATE
    except KnownError as exc:
        sys.stderr.write(f"knowledge: {_safe(exc)}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # the environment's: a folder that cannot be listed, a full disk
        where = f" ({_safe(exc.filename)})" if exc.filename else ""
        sys.stderr.write(f"knowledge: {_safe(exc.strerror or exc)}{where}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
