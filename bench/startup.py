"""Start-up of the `knowledge` command: whole processes, timed from start to exit.

    python bench/startup.py [--runs 20] [--vault PATH]

Runs `knowledge --help`, a usage error, and warm commands (`diagnostics --json`,
`show`, `records --json`) on an indexed small vault (default: a copy of the demo vault,
scanned once first) in fresh processes, each `--runs` times, and prints the median and
the range of each, in seconds, as one JSON object. The package is compiled once first and
each process runs without PYTHONDONTWRITEBYTECODE, as an installed app would (see
`first_search.py`). `python -X importtime -m knowledge_desktop.cli --help` shows where
the rest goes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from first_search import installed_env

DEMO = Path(__file__).resolve().parent.parent / "resources" / "demo-vault"


def commands(vault: str) -> dict[str, list[str]]:
    return {
        "knowledge --help": ["--help"],
        "knowledge show --help": ["show", "--help"],
        "knowledge records VAULT --limit 0 (usage error, exit 2)": ["records", vault, "--limit", "0"],
        "knowledge diagnostics VAULT --json": ["diagnostics", vault, "--json"],
        "knowledge show VAULT ID": ["show", vault, "pg_01M1E8JP10J4Q9ZC"],
        "knowledge records VAULT --json": ["records", vault, "--json"],
    }


def seconds(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "knowledge_desktop.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        env=env,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--vault", type=Path, help="an indexed vault (default: a scanned demo copy)")
    args = parser.parse_args()
    env = installed_env()
    with tempfile.TemporaryDirectory() as tmp:
        vault = args.vault
        if vault is None:
            vault = Path(tmp) / "demo"
            shutil.copytree(DEMO, vault, ignore=shutil.ignore_patterns(".knowledge"))
            subprocess.run(
                [sys.executable, "-m", "knowledge_desktop.cli", "scan", str(vault)],
                stdout=subprocess.DEVNULL,
                check=True,
                env=env,
            )
        result = {}
        for what, argv in commands(str(vault)).items():
            times = [seconds(argv, env) for _ in range(args.runs)]
            result[what] = {
                "median": round(statistics.median(times), 3),
                "min": round(min(times), 3),
                "max": round(max(times), 3),
            }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
