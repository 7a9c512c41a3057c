"""Start to first answer of `knowledge mcp` (issue 28 §3: ≤ 1 s), alone and repeated.

    python bench/mcp_start.py --records 1000 [--runs 12] [--code DIR] [--vault DIR] [--json]

The vault and the extension are those of bench/mcp_latency.py (`bench-agent`, granted
`entities.read:person`). Each run starts a fresh server process with the official MCP
client and times, with `time.perf_counter`, from the start to the answer of the first
`knowledge_grep` (initialize included): the imports, opening the vault, starting the
watcher and the first reconcile are all in it. `--code` points at another checkout for a
"before" figure; run the two alternately on a busy machine. What the server imports is
seen with `PYTHONPROFILEIMPORTTIME=1` in its environment (`--importtime FILE`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from mcp_latency import EXTENSION, REPO, setup  # noqa: E402
from scan import ensure_vault  # noqa: E402


def first_answer(code: Path, vault: Path, word: str, importtime: Path | None) -> float:
    env = {**os.environ, "PYTHONPATH": str(code)}
    if importtime is not None:
        env["PYTHONPROFILEIMPORTTIME"] = "1"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "knowledge_desktop.cli", "mcp", str(vault), "--extension", EXTENSION],
        env=env,
        cwd=str(code),
    )
    took: list[float] = []

    async def run() -> None:
        with open(importtime or os.devnull, "w") as errlog:
            started = time.perf_counter()
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                result = await client.call_tool("knowledge_grep", {"query": word})
                took.append(time.perf_counter() - started)
                if result.is_error:
                    raise SystemExit(f"knowledge_grep {word!r}: {result.content}")

    anyio.run(run)
    return took[0]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vault", type=Path, help="default: bench/vaults/<records>-<seed>")
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose server is timed")
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--importtime", type=Path, help="write the last run's -X importtime log here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    vault = args.vault or BENCH / "vaults" / f"{args.records}-{args.seed}"
    ensure_vault(vault, args.records, args.seed, regenerate=False)
    code = args.code.resolve()
    word = setup(code, vault)["common"][0]
    load = os.getloadavg()[0]
    runs = [
        first_answer(code, vault, word, args.importtime if n == args.runs - 1 else None)
        for n in range(args.runs)
    ]
    result = {
        "code": str(code),
        "runsS": [round(r, 3) for r in runs],
        "medianS": round(statistics.median(runs), 3),
        "minS": round(min(runs), 3),
        "load1": load,
        "load1After": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:12} {value}")


if __name__ == "__main__":
    main()
