"""Load test: several agents on one vault at once, while an editor changes it (issue 28 §4).

    python bench/agents.py [--records 2000] [--vault DIR] [--clients 4] [--calls 1000]
                           [--edits-per-second 10] [--renames-every 2] [--window] [--json]

A generated vault (`bench/generate_vault.py`, in a temporary folder unless `--vault`) gets a
self page and one extension per client (`load-agent-N`: each within one extension's daily
write quota), allowed to read people, to read and write the user's `x.load.*` facts and to
read and write the `keep` collection. Then, at once:

* `--clients` official MCP clients each start their own `knowledge mcp` server (a separate
  process, as separate agents do) and make `--calls` calls in turn: `knowledge_grep`,
  `knowledge_lookup`, `knowledge_record`, `knowledge_facts_put` (a value of its own),
  `knowledge_documents_upsert` (a key of its own in `keep`), `knowledge_changes_list`;
  a write refused as `vault-busy` (another process holds the write lock) is tried again,
  as an agent would, and counted;
* an editor thread rewrites `--edits-per-second` note and concept files a second (half in
  place, half by temp file and rename, as editors save) and renames one every
  `--renames-every` seconds;
* with `--window`, the window (`knowledge-desktop VAULT`, offscreen) is open on the vault.

It reports p50/p95/p99 per tool, errors per tool (and how many said the database was locked,
in SQLite's words or the engine's), why any call walked the vault instead of answering live,
and then checks, in this process, that every acknowledged write is in the vault — each fact
value and document key exactly once (0 lost, 0 duplicated) — both as the vault is and after
a rebuild of its projections from the Markdown, and that the journal is consistent: no entry
left pending or rolled back, and one published entry per acknowledged write.

Importable: `run(root, clients=…, calls=…, …)` returns the report (the test suite runs a
scaled-down version: tests/test_agents_load.py).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
for folder in (BENCH, REPO):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import generate_vault  # noqa: E402

from knowledge_desktop.api.extension import open_extension  # noqa: E402
from knowledge_desktop.engine.api.grants import Extensions  # noqa: E402
from knowledge_desktop.engine.api.manifest import validate_manifest  # noqa: E402
from knowledge_desktop.engine.vault import Vault  # noqa: E402
from knowledge_desktop.engine.vault_self import set_self  # noqa: E402

EXTENSION = "load-agent"
"""Client n acts as extension `load-agent-n` (docs/mcp.md: each client its own extension),
so each stays within the daily write quota of one extension."""
PERMISSIONS = (
    "entities.read:person",
    "facts.read:self:x.load.*",
    "facts.write:self:x.load.*",
    "collections.read:keep",
    "collections.write:keep",
)
PREDICATE = "x.load.noted"
TOOLS = ("grep", "lookup", "record", "facts.put", "documents.upsert", "changes.list")
BUSY_RETRIES = 20
LOCKED = ("database is locked", "is locked by")
"""SQLite's busy answer, raw and as the engine words it (`store/faults.py`, `StateLocked`)."""
BUSY = ("vault-busy", "another process is writing")
"""How a write refused because another process holds the vault's write lock reads."""


def call_for(kind: str, who: str, i: int, person: tuple[str, str], word: str) -> tuple[str, dict[str, Any]]:
    """The tool and arguments of call `i` of client `who`; its writes are its own."""
    if kind == "grep":
        return "knowledge_grep", {"query": word}
    if kind == "lookup":
        return "knowledge_lookup", {"query": person[1]}
    if kind == "record":
        return "knowledge_record", {"id": person[0]}
    if kind == "facts.put":
        return "knowledge_facts_put", {"predicateHint": PREDICATE, "value": f"{who} n{i}"}
    if kind == "documents.upsert":
        key = f"{who}-{i}"
        return "knowledge_documents_upsert", {
            "collection": "keep",
            "key": key,
            "title": f"Load {key}",
            "body": f"Body {key}.\n",
        }
    return "knowledge_changes_list", {}


def extension_of(number: int) -> str:
    return f"{EXTENSION}-{number}"


def prepare(root: Path, clients: int) -> dict[str, Any]:
    """Self page, one extension per client and their grants; the people the clients ask about."""
    with Vault.open(root) as vault:
        vault.reconcile()
        conn = vault.store.reader()
        people = conn.execute(
            "SELECT id, title FROM catalog WHERE scope='private' AND status='record' AND kind='page'"
            " AND type='person' AND valid=1 AND duplicate=0 AND lifecycle='active' ORDER BY path LIMIT 100"
        ).fetchall()
        if not conn.execute("SELECT 1 FROM catalog WHERE aliases LIKE '%knowledge:self%'").fetchone():
            set_self(vault, None, people[0][0])
        extensions = Extensions(vault.store, vault.root)
        installed = [e.name for e in extensions.list()]
        for name in [extension_of(n) for n in range(clients)]:
            if name not in installed:
                manifest = {
                    "name": name,
                    "description": "load test agent",
                    "knowledge": {"permissions": list(PERMISSIONS), "reason": "load test"},
                }
                extensions.install(validate_manifest(manifest), "private")
            for permission in PERMISSIONS:
                extensions.grant(name, permission)
        edited = [
            str(p.relative_to(root))
            for folder in ("notes", "concepts")
            for p in sorted((root / "private" / folder).glob("*.md"))
        ]
    return {"people": [(str(i), str(t)) for i, t in people], "edited": edited}


class Editor(threading.Thread):
    """Rewrites files at a steady rate and renames some, as a person and a sync client do."""

    def __init__(self, root: Path, paths: list[str], per_second: float, rename_every: float) -> None:
        super().__init__(name="load-editor", daemon=True)
        self.root = root
        self.paths = list(paths)
        self.per_second = per_second
        self.rename_every = rename_every
        self.stop_event = threading.Event()
        self.edits = 0
        self.renames = 0
        self.failures: list[str] = []

    def run(self) -> None:
        rng = random.Random(7)
        next_rename = time.monotonic() + self.rename_every
        while not self.stop_event.wait(1.0 / self.per_second):
            if not self.paths:
                return
            index = rng.randrange(len(self.paths))
            path = self.root / self.paths[index]
            try:
                text = path.read_text(encoding="utf-8")
                text += f"\nEdited by the load test, edit {self.edits}.\n"
                if self.edits % 2:
                    path.write_text(text, encoding="utf-8")
                else:
                    temp = path.with_name(f".{path.name}.tmp")
                    temp.write_text(text, encoding="utf-8")
                    os.replace(temp, path)
                self.edits += 1
                if self.rename_every and time.monotonic() >= next_rename:
                    moved = path.with_name(f"{path.stem}-r{self.renames}.md")
                    os.replace(path, moved)
                    self.paths[index] = str(moved.relative_to(self.root))
                    self.renames += 1
                    next_rename = time.monotonic() + self.rename_every
            except OSError as exc:
                self.failures.append(f"{path}: {exc}")


def percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"calls": 0}
    ordered = sorted(values)
    cut = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {
        "calls": len(ordered),
        "p50Ms": round(cut[49] * 1000, 1),
        "p95Ms": round(cut[94] * 1000, 1),
        "p99Ms": round(cut[98] * 1000, 1),
        "maxMs": round(ordered[-1] * 1000, 1),
    }


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0] if result.content else None
    return block.text if isinstance(block, types.TextContent) else ""


async def client(
    number: int,
    root: Path,
    calls: int,
    plan: dict[str, Any],
    out: dict[str, Any],
    logs: Path,
) -> None:
    """One agent: its own server process, `calls` mixed calls, every answer recorded."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knowledge_desktop.cli", "mcp", str(root), "--extension", extension_of(number)],
        env=env,
        cwd=str(REPO),
    )
    log = logs / f"server-{number}.log"
    try:
        await _client(number, root, calls, plan, out, params, log)
    except Exception as exc:  # a server that died: reported, the other clients go on
        said = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        out["clientFailures"].append(f"client {number}: {exc!r}; its server said: {' | '.join(said)}")


async def _client(
    number: int,
    root: Path,
    calls: int,
    plan: dict[str, Any],
    out: dict[str, Any],
    params: StdioServerParameters,
    log: Path,
) -> None:
    people = plan["people"]
    words = ["meeting", "project", people[number % len(people)][1].split()[-1]]
    with log.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for i in range(calls):
                kind = TOOLS[(i + number) % len(TOOLS)]
                person = people[(i * 7 + number) % len(people)]
                name, args = call_for(kind, f"c{number}", i, person, words[i % len(words)])
                for _attempt in range(BUSY_RETRIES):
                    began = time.perf_counter()
                    result = await session.call_tool(name, args)
                    took = time.perf_counter() - began
                    message = text_of(result) if result.is_error else ""
                    if result.is_error and any(m in message for m in BUSY):
                        out["busyRetries"] += 1
                        await anyio.sleep(0.05)
                        continue
                    break
                out["latency"][kind].append(took)
                freshness = (result.meta or {}).get("freshness") or {}
                out["freshness"][freshness.get("mode", "none")] += 1
                if freshness.get("reason"):
                    out["walkReasons"][freshness["reason"]] += 1
                if result.is_error:
                    out["errors"][kind].append(message[:300])
                    continue
                answer = json.loads(text_of(result))
                if kind == "facts.put":
                    out["facts"].append((args["value"], answer.get("status")))
                elif kind == "documents.upsert":
                    out["documents"].append((args["key"], answer.get("status")))


def verify(root: Path, facts: list[str], documents: list[str]) -> dict[str, Any]:
    """Every acknowledged write in the vault exactly once, as it is and after a rebuild."""

    def check(ext: Any) -> dict[str, int]:
        values = collections.Counter(str(f.value) for f in ext.facts.lookup("self", "x.load"))
        keys = collections.Counter()
        for doc in ext.documents.list("keep"):
            keys[str(doc.key)] += 1
        return {
            "factsLost": sum(1 for v in facts if values[v] == 0),
            "factsDuplicated": sum(1 for v in facts if values[v] > 1),
            "documentsLost": sum(1 for k in documents if keys[k] == 0),
            "documentsDuplicated": sum(1 for k in documents if keys[k] > 1),
        }

    with open_extension(root, extension_of(0)) as ext:
        now = check(ext)
        ext.vault.rebuild()
        rebuilt = check(ext)
        states: collections.Counter[str] = collections.Counter()
        published_by_agent = 0
        offset: int | None = 0
        while offset is not None:
            page = ext.vault.journal(limit=1000, offset=offset)
            for item in page["items"]:
                states[item["state"]] += 1
                if item["state"] == "published" and EXTENSION in str(item.get("actor") or ""):
                    published_by_agent += 1
            offset = page["nextOffset"]
    return {
        "asIs": now,
        "afterRebuild": rebuilt,
        "journal": {
            "states": dict(states),
            "publishedByAgent": published_by_agent,
            "acknowledgedWrites": len(facts) + len(documents),
        },
    }


def run(
    root: Path,
    *,
    clients: int = 4,
    calls: int = 1000,
    edits_per_second: float = 10.0,
    renames_every: float = 2.0,
    window: bool = False,
) -> dict[str, Any]:
    plan = prepare(root, clients)
    out: dict[str, Any] = {
        "latency": collections.defaultdict(list),
        "errors": collections.defaultdict(list),
        "freshness": collections.Counter(),
        "walkReasons": collections.Counter(),
        "facts": [],
        "documents": [],
        "busyRetries": 0,
        "clientFailures": [],
    }
    logs = Path(tempfile.mkdtemp(prefix="knowledge-agents-logs-"))
    viewer: subprocess.Popen[bytes] | None = None
    if window:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
        code = "import sys; from knowledge_desktop.ui.app import main; sys.exit(main(sys.argv[1:]))"
        viewer = subprocess.Popen(
            [sys.executable, "-c", code, str(root)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    editor = Editor(root, plan["edited"], edits_per_second, renames_every)
    started = time.perf_counter()
    editor.start()
    try:

        async def all_clients() -> None:
            async with anyio.create_task_group() as tg:
                for number in range(clients):
                    tg.start_soon(client, number, root, calls, plan, out, logs)

        anyio.run(all_clients)
    finally:
        editor.stop_event.set()
        editor.join()
        if viewer is not None:
            window_alive = viewer.poll() is None
            viewer.terminate()
            viewer.wait(30)
            out["windowRanThroughout"] = window_alive
    seconds = time.perf_counter() - started
    acknowledged_facts = [v for v, status in out["facts"] if status == "applied"]
    acknowledged_documents = [k for k, status in out["documents"] if status in ("created", "updated")]
    errors = {k: len(v) for k, v in out["errors"].items()}
    locked = sum(1 for v in out["errors"].values() for m in v if any(w in m for w in LOCKED))
    return {
        "clients": clients,
        "callsPerClient": calls,
        "seconds": round(seconds, 1),
        "editor": {"edits": editor.edits, "renames": editor.renames, "failures": editor.failures[:5]},
        "perTool": {k: percentiles(out["latency"][k]) for k in TOOLS},
        "errors": errors,
        "errorSamples": {k: v[:3] for k, v in out["errors"].items()},
        "databaseLocked": locked,
        "busyRetries": out["busyRetries"],
        "clientFailures": out["clientFailures"],
        "serverLogs": str(logs),
        "freshness": dict(out["freshness"]),
        "walkReasons": dict(out["walkReasons"]),
        "writeStatuses": dict(collections.Counter(s for _, s in out["facts"] + out["documents"])),
        "window": out.get("windowRanThroughout"),
        "verify": verify(root, acknowledged_facts, acknowledged_documents),
        "load1": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", type=Path, help="use (and change) this vault instead of a new one")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--edits-per-second", type=float, default=10.0)
    parser.add_argument("--renames-every", type=float, default=2.0)
    parser.add_argument("--window", action="store_true", help="keep the window open on the vault too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    scratch = None
    if args.vault is None:
        scratch = Path(tempfile.mkdtemp(prefix="knowledge-agents-"))
        root = scratch / "vault"
        generate_vault.generate(root, args.records, args.seed)
    else:
        root = args.vault
    try:
        report = run(
            root,
            clients=args.clients,
            calls=args.calls,
            edits_per_second=args.edits_per_second,
            renames_every=args.renames_every,
            window=args.window,
        )
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(report, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
