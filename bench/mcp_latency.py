"""MCP latency benchmark: `knowledge_grep`, `knowledge_lookup` and `knowledge_record` over a
real `knowledge mcp` server, as an agent's client sees them (issue 28 §3).

    python bench/mcp_latency.py --records 10000 [--calls 100] [--memory-calls 2000]
                                [--code DIR] [--vault DIR] [--json]

The vault is the generator's (`bench/vaults/<n>-<seed>/`, made when missing). A child process
running the code under test (`--code`, default this checkout: point it at another checkout
for a "before" figure) opens it, reconciles it and installs the extension `bench-agent`,
granted `entities.read:person` only, so every search is filtered down to people. Then the
official MCP client starts `python -m knowledge_desktop.cli mcp VAULT --extension
bench-agent` with that code and times, with `time.perf_counter` around each call:

* start to first answer: from starting the server process to the first `knowledge_grep`
  answer (initialize included);
* `knowledge_grep` of a common word (in most bodies) and of a rare one (a person's last
  name), `knowledge_lookup` of a person's title, `knowledge_record` of a person's id:
  `--calls` calls each, p50 / p95 / max;
* memory: the server's resident set (VmRSS) after the timed calls and after
  `--memory-calls` more mixed calls, and the growth between the two.

Nothing is written to the vault while timing (bench/agents.py is the load test). Figures
depend on the machine's load: the 1-minute load average is reported with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from scan import ensure_vault  # noqa: E402

EXTENSION = "bench-agent"
SETUP = r"""
import collections, json, re, sys
from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.api.grants import Extensions
from knowledge_desktop.engine.api.manifest import validate_manifest
from knowledge_desktop.engine.query.grep_query import GrepQuery

name = sys.argv[2]
with Vault.open(sys.argv[1]) as vault:
    vault.reconcile()
    extensions = Extensions(vault.store, vault.root)
    if name not in [e.name for e in extensions.list()]:
        manifest = {"name": name, "description": "bench", "knowledge": {
            "permissions": ["entities.read:person"], "reason": "bench"}}
        extensions.install(validate_manifest(manifest), "private")
    extensions.grant(name, "entities.read:person")
    vault.grep(GrepQuery("warm"), "private")
    conn = vault.store.reader()
    people = conn.execute(
        "SELECT id, title FROM catalog WHERE scope='private' AND status='record' AND kind='page'"
        " AND type='person' AND valid=1 AND duplicate=0 ORDER BY path LIMIT 200").fetchall()
    counts = collections.Counter()
    for (path,) in conn.execute("SELECT path FROM catalog WHERE status='record' ORDER BY path LIMIT 300"):
        text = (vault.root / path).read_text("utf-8", errors="replace").lower()
        counts.update(set(re.findall(r"[a-z]{5,}", text.split("---", 2)[-1])))
    print(json.dumps({"people": people, "common": [w for w, _ in counts.most_common(5)]}))
"""


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    cut = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else ordered * 99
    return {
        "p50Ms": round(cut[49] * 1000, 2),
        "p95Ms": round(cut[94] * 1000, 2),
        "maxMs": round(ordered[-1] * 1000, 2),
        "calls": len(ordered),
    }


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def server_pid(parent: int) -> int | None:
    """The newest child process of `parent` (the server the client started)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent:
            found.append(int(entry.name))
    return max(found) if found else None


def setup(code: Path, vault: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, "-c", SETUP, str(vault), EXTENSION],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=3600,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(code: Path, vault: Path, plan: dict[str, Any], calls: int, memory_calls: int) -> dict[str, Any]:
    people = plan["people"]
    common = plan["common"][0]
    rare = people[len(people) // 2][1].split()[-1]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knowledge_desktop.cli", "mcp", str(vault), "--extension", EXTENSION],
        env={**os.environ, "PYTHONPATH": str(code)},
        cwd=str(code),
    )
    out: dict[str, Any] = {"commonWord": common, "rareWord": rare}

    async def run() -> None:
        with open(os.devnull, "w") as errlog:
            started = time.perf_counter()
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                first = await client.call_tool("knowledge_grep", {"query": common})
                out["startToFirstAnswerS"] = round(time.perf_counter() - started, 3)
                assert not first.is_error, first.content
                out["freshness"] = (first.meta or {}).get("freshness")
                pid = server_pid(os.getpid())

                async def timed(name: str, args: dict[str, Any]) -> float:
                    began = time.perf_counter()
                    result: types.CallToolResult = await client.call_tool(name, args)
                    took = time.perf_counter() - began
                    if result.is_error:
                        raise SystemExit(f"{name} {args}: {result.content}")
                    return took

                for _ in range(5):
                    await timed("knowledge_grep", {"query": common})
                series = {
                    "grepCommon": ("knowledge_grep", lambda i: {"query": common}),
                    "grepRare": ("knowledge_grep", lambda i: {"query": rare}),
                    "lookup": ("knowledge_lookup", lambda i: {"query": people[i % len(people)][1]}),
                    "record": ("knowledge_record", lambda i: {"id": people[i % len(people)][0]}),
                }
                for key, (tool, args) in series.items():
                    out[key] = percentiles([await timed(tool, args(i)) for i in range(calls)])
                before = rss_kib(pid) if pid else None
                mixed = list(series.values())
                for i in range(memory_calls):
                    tool, args = mixed[i % len(mixed)]
                    await timed(tool, args(i))
                after = rss_kib(pid) if pid else None
                out["memory"] = {
                    "rssAfterTimedMiB": round(before / 1024, 1) if before else None,
                    "rssAfterMoreMiB": round(after / 1024, 1) if after else None,
                    "moreCalls": memory_calls,
                    "growthPct": round(100 * (after - before) / before, 1) if before and after else None,
                }

    anyio.run(run)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", type=Path, help="default: bench/vaults/<records>-<seed>")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose server is timed")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--memory-calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    vault = args.vault or BENCH / "vaults" / f"{args.records}-{args.seed}"
    ensure_vault(vault, args.records, args.seed, regenerate=False)
    plan = setup(args.code.resolve(), vault)
    result = {
        "records": args.records,
        "code": str(args.code),
        "load1": os.getloadavg()[0],
        **measure(args.code.resolve(), vault, plan, args.calls, args.memory_calls),
    }
    result["load1After"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:22} {value}")


if __name__ == "__main__":
    main()
