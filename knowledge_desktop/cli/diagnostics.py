"""`knowledge diagnostics`: list the vault's diagnostics, or export them (docs/diagnostics.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge_desktop.cli.contract import Command
from knowledge_desktop.cli.output import safe as _safe
from knowledge_desktop.engine import diagnostics as dg
from knowledge_desktop.engine.query.merge_candidates import as_text as merge_candidates_text
from knowledge_desktop.engine.records.dates import utc_now_text
from knowledge_desktop.engine.report import diagnostics_report

if TYPE_CHECKING:
    from knowledge_desktop.engine.vault import Vault

EXIT_OK, EXIT_FINDINGS = 0, 3


def cmd_diagnostics(vault: Vault, args: argparse.Namespace) -> int:
    items = vault.diagnostics()
    candidates = vault.merge_candidates()
    fmt = args.format or ("json" if args.json else None)
    if fmt is None:
        problems, notes = diagnostics_report.split_notes(items)
        lines = [
            f"{d.severity.value:<7} {d.code:<26} {_safe(d.path)}"
            f"{':' + str(d.line) if d.line else ''}  {_safe(d.message)}"
            for d in problems
        ]
        if notes:  # one line for them all, as every report groups them (issue 25 §4)
            group = diagnostics_report.group_message(len(notes))
            lines.append(f"{'info':<7} {diagnostics_report.PLAIN_NOTE:<26} {group}")
        text = "\n".join(lines)
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


def register(command: Command) -> None:
    p = command("diagnostics", "List or export diagnostics.", cmd_diagnostics)
    p.add_argument("--format", choices=diagnostics_report.FORMATS)
    p.add_argument("-o", "--output", help="write the report to this file")
    p.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        help="exit 3 when a diagnostic at or above this severity exists",
    )
