"""`knowledge scan | records | show | lookup | ontology`: reading the vault's records."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from knowledge_desktop.cli import argtypes
from knowledge_desktop.cli.contract import Command
from knowledge_desktop.cli.filters import add_record_filters as _add_record_filters
from knowledge_desktop.cli.filters import record_filter as _record_filter
from knowledge_desktop.cli.output import emit as _emit
from knowledge_desktop.cli.output import safe as _safe
from knowledge_desktop.engine.visible_text import block

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK = 0


def cmd_scan(vault: Vault, args: argparse.Namespace) -> int:
    change = vault.last_scan
    text_ms: float | None = None
    embed_ms: float | None = None
    if args.index_text or args.embed:
        started = time.perf_counter()
        vault.index_keywords()
        vault.index_note_text()
        text_ms = round((time.perf_counter() - started) * 1000, 1)
    if args.embed:  # minutes on a large vault: asked for, never implied by --index-text
        started = time.perf_counter()
        vault.index_meaning()
        embed_ms = round((time.perf_counter() - started) * 1000, 1)
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
    if embed_ms is not None:
        payload["embedMs"] = embed_ms

    def human() -> str:
        sev = counts["diagnostics"]
        return (
            f"{_safe(vault.root)}\n  {counts['records']} records ({counts['valid']} valid, "
            f"{counts['invalid']} invalid, {counts['eligible']} current), "
            f"{counts['unrecognized']} unrecognized files, {counts['notes']:,} notes\n"
            f"  diagnostics: {sev['error']} errors, {sev['warning']} warnings, "
            f"{sev['info']} info\n  scopes: {', '.join(map(_safe, counts['scopes'])) or '-'}\n"
            f"  parsed {payload['parsed']} files in {payload['elapsedMs']} ms"
            + (f"\n  search text indexed in {text_ms} ms" if text_ms is not None else "")
        )

    _emit(args, payload, human)
    return EXIT_OK


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
        from knowledge_desktop.cli import versions

        return versions.show_at(vault, args)
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


def cmd_lookup(vault: Vault, args: argparse.Namespace) -> int:
    result = vault.lookup(args.query, _record_filter(args), notes=True)

    def human() -> str:
        if result["status"] == "found":
            r = result["record"]
            return f"found: {_safe(r['id'] or r['kind'])}  {_safe(r['title'])}  ({_safe(r['path'])})"
        if result["status"] == "ambiguous":
            return "ambiguous:\n" + "\n".join(
                f"  {_safe(c['id'] or c['kind'])}  {_safe(c['title'])}  ({_safe(c['path'])})"
                for c in result["candidates"]
            )
        return "missing"

    _emit(args, result, human)
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


def register(command: Command) -> None:
    p = command("scan", "Reconcile the vault and print counts.", cmd_scan)
    p.set_defaults(baseline=True)  # its reconcile packs the first checkpoint's blobs beside it
    p.add_argument(
        "--index-text",
        action="store_true",
        help="also index the search text now (otherwise the first search does it)",
    )
    p.add_argument(
        "--embed",
        action="store_true",
        help="also index the search text and embed every passage for search by meaning now",
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
    p.add_argument("--limit", type=argtypes.limit(1000), default=100)
    p.add_argument("--offset", type=argtypes.offset, default=0)
    p = command("show", "Show one record by id or vault-relative path.", cmd_show)
    p.add_argument("target", metavar="ID|PATH")
    p.add_argument(
        "--at", metavar="COMMIT|DATE", type=argtypes.when, help="the record as it was then (cli_versions.py)"
    )
    p = command("lookup", "Exact lookup by id, title or alias.", cmd_lookup)
    p.add_argument("query")
    _add_record_filters(p)
    p = command("ontology", "Show each partition's active ontology.", cmd_ontology)
    p.add_argument("--view", choices=("definitions", "sources", "diagnostics"), default="definitions")
    p.add_argument("--scope", help="partition name")
