"""`knowledge extensions`: installed extensions and the knowledge permissions a person turns on
(issue 16 §2–3; spec: facts-entities-collections-api, "Permission strings").

    knowledge extensions VAULT list --json                  # [{name, partition, description, reason,
                                                            #   installedAt, permissions: [{permission,
                                                            #   sentence, granted}], predicates: [...]}]
    knowledge extensions VAULT install MANIFEST [--partition P] --json   # the installed extension
    knowledge extensions VAULT grant NAME PERM --json       # {name, permission, granted, changed}
    knowledge extensions VAULT revoke NAME PERM --json      # the same, granted false
    knowledge extensions VAULT uninstall NAME [--delete] --json
        # {name, mode: keep|delete, contributed: {facts, documents, collections}, runId, changes, kept}

Install turns every permission off; grant and revoke count from the extension's
next call. Uninstall removes the extension's private state and keeps what it wrote;
`--delete` also deletes its documents and collections and makes its facts expire, as
one run of the person (`runId`; `knowledge revert VAULT --run R` undoes it).
Exit 0; 2 for a usage error, an invalid manifest (every error is printed: on
stderr, and with `--json` as `{"error": {"code": "invalid-manifest", "message",
"errors"}}` on stdout), an unknown extension or permission, or a read-only vault;
6 when the vault's state cannot be used (`dispatch.py`). The vault is opened without a
scan (none of these read records), except for uninstall, which finds documents
through the catalog.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from knowledge_desktop.engine.api.grants import Extensions, Installed
from knowledge_desktop.engine.api.manifest import load_manifest
from knowledge_desktop.engine.api.permissions import parse_permission
from knowledge_desktop.engine.api.uninstall import uninstall
from knowledge_desktop.engine.errors import ManifestInvalid, QueryError
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.visible_text import json_text
from knowledge_desktop.engine.visible_text import one_line as _safe

EXIT_OK, EXIT_USAGE = 0, 2


def register(sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add `extensions VAULT list|install|grant|revoke` to the `knowledge` subcommands."""
    helptext = "Installed extensions and their knowledge permissions (all off until granted)."
    p = sub.add_parser("extensions", help=helptext, description=helptext)
    p.add_argument("vault", help="the vault folder")
    p.add_argument("--json", action="store_true", help="print JSON")
    actions = p.add_subparsers(dest="action", required=True, parser_class=parser_class)

    def action(name: str, text: str) -> argparse.ArgumentParser:
        a: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
        a.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
        return a

    action("list", "Every installed extension, its reason, and each permission with its switch.")
    a = action("install", "Install an extension from its manifest.json, every permission off.")
    a.add_argument("manifest", metavar="MANIFEST")
    a.add_argument("--partition", help="the partition it may see (default: private, or the only one)")
    a = action("grant", "Turn on one permission the extension's manifest requests.")
    a.add_argument("name", metavar="NAME")
    a.add_argument("permission", metavar="PERM")
    a = action("revoke", "Turn off one permission.")
    a.add_argument("name", metavar="NAME")
    a.add_argument("permission", metavar="PERM")
    a = action("uninstall", "Uninstall an extension: keep what it wrote, or --delete it (undoable).")
    a.add_argument("name", metavar="NAME")
    a.add_argument(
        "--delete",
        action="store_true",
        help="delete its documents and collections and make its facts expire (one revertible run)",
    )
    p.set_defaults(standalone=cmd_extensions)


def cmd_extensions(args: argparse.Namespace) -> int:
    if args.action == "install":
        try:  # read before the vault opens: a bad manifest changes nothing
            manifest = load_manifest(Path(args.manifest))
        except ManifestInvalid as exc:
            return _invalid(args, exc)
    with Vault.open(args.vault) as vault:
        extensions = Extensions(vault.store, vault.root)
        if args.action == "list":
            return _list(args, extensions.list())
        if vault.read_only:
            raise QueryError("the vault is read-only: extensions cannot be installed or granted there")
        if args.action == "install":
            scope = args.partition or _default_partition(vault.root)
            try:
                installed = extensions.install(manifest, scope)
            except ManifestInvalid as exc:
                return _invalid(args, exc)
            return _show(
                args,
                installed,
                f"installed {_safe(installed.name)} into {_safe(installed.scope)}; every permission is off",
            )
        if args.action == "uninstall":
            return _uninstall(args, vault)
        if args.action == "grant":
            changed = extensions.grant(args.name, args.permission)
        else:
            changed = extensions.revoke(args.name, args.permission)
        installed = extensions.get(args.name)
        permission = next(p for p in installed.manifest.permissions if str(p) == _canonical(args.permission))
        on = permission in installed.granted
        if args.json:
            _print_json(
                {"name": installed.name, "permission": str(permission), "granted": on, "changed": changed}
            )
        else:
            state = "on" if on else "off"
            print(f"{_safe(permission)}: {state}" + ("" if changed else f" (it was {state} already)"))
        return EXIT_OK


def _uninstall(args: argparse.Namespace, vault: Vault) -> int:
    vault.reconcile()  # documents are found through the catalog: it must see the files as they are
    done = uninstall(vault.store, vault.root, vault.write, args.name, delete=args.delete)
    if args.json:
        _print_json(done.as_json())
        return EXIT_OK
    counts = done.contributed.as_json()
    what = (
        f"{counts['facts']} fact(s), {counts['documents']} document(s), {counts['collections']} collection(s)"
    )
    if done.deleted:
        print(
            f"uninstalled {_safe(done.name)}; deleted {what} in run {_safe(done.run_id)}"
            " (undo: knowledge revert --run)"
        )
        for path in done.kept:
            print(f"  kept: {_safe(path)}")
    else:
        print(f"uninstalled {_safe(done.name)}; kept {what}")
    return EXIT_OK


def _canonical(text: str) -> str:
    return str(parse_permission(text))


def _default_partition(root: Path) -> str:
    """`private` when the vault has it, else its only partition; otherwise the person must say."""
    folders = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if "private" in folders:
        return "private"
    if len(folders) == 1:
        return folders[0]
    listed = ", ".join(folders) or "none"  # escaped where printed (dispatch.py)
    raise QueryError(f"choose the partition with --partition (the vault has: {listed})")


def _invalid(args: argparse.Namespace, exc: ManifestInvalid) -> int:
    sys.stderr.write("knowledge: invalid extension manifest\n")
    for error in exc.errors:
        sys.stderr.write(f"  {_safe(error)}\n")
    if args.json:
        message = f"the manifest has {len(exc.errors)} error(s)"
        _print_json({"error": {"code": "invalid-manifest", "message": message, "errors": exc.errors}})
    return EXIT_USAGE


def _list(args: argparse.Namespace, installed: list[Installed]) -> int:
    if args.json:
        _print_json([e.as_json() for e in installed])
        return EXIT_OK
    if not installed:
        print("no extensions installed")
    for e in installed:
        _human(e)
    return EXIT_OK


def _show(args: argparse.Namespace, installed: Installed, headline: str) -> int:
    if args.json:
        _print_json(installed.as_json())
    else:
        print(headline)
        _human(installed)
    return EXIT_OK


def _human(e: Installed) -> None:
    shown = e.as_json()
    print(f"{_safe(e.name)}  ({_safe(e.scope)})  {_safe(e.manifest.description)}")
    if e.manifest.reason:
        print(f"  why: {_safe(e.manifest.reason)}")
    for p in shown["permissions"]:
        print(f"  [{'on ' if p['granted'] else 'off'}] {_safe(p['sentence'])}  ({_safe(p['permission'])})")


def _print_json(value: Any) -> None:
    print(json_text(value))
