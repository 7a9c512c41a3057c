"""Start-up of the `knowledge` command and of the window's module: whole processes, timed
from start to exit.

    python bench/startup.py [--runs 20] [--vault PATH] [--against DIR]

Runs `knowledge --help`, a usage error, and warm commands (`diagnostics --json`,
`show`, `records --json`) on an indexed small vault (a copy of `--vault`, default the
demo vault, scanned once first; `show` asks for a demo vault id), and `import
knowledge_desktop.ui.main_window`, in fresh processes, each `--runs` times, and prints
the median and the range of each, in seconds, as one JSON object. The package is
compiled once first and each process runs without PYTHONDONTWRITEBYTECODE, as an
installed app would (see `first_search.py`).

`--against DIR`: a folder holding another version of `knowledge_desktop` (say
`git archive main knowledge_desktop | tar -x -C DIR`), run alternately with this
checkout's, run for run, so that both see the same load on a shared machine; each figure
then has a `before` (DIR) and an `after` (this checkout). `python -X importtime -m
knowledge_desktop.cli --help` shows where the rest goes.
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
    knowledge = [sys.executable, "-m", "knowledge_desktop.cli"]
    return {
        "knowledge --help": [*knowledge, "--help"],
        "knowledge show --help": [*knowledge, "show", "--help"],
        "knowledge records VAULT --limit 0 (usage error, exit 2)": [
            *knowledge,
            "records",
            vault,
            "--limit",
            "0",
        ],
        "knowledge diagnostics VAULT --json": [*knowledge, "diagnostics", vault, "--json"],
        "knowledge show VAULT ID": [*knowledge, "show", vault, "pg_01M1E8JP10J4Q9ZC"],
        "knowledge records VAULT --json": [*knowledge, "records", vault, "--json"],
        "python -c 'import knowledge_desktop.ui.main_window'": [
            sys.executable,
            "-c",
            "import knowledge_desktop.ui.main_window",
        ],
    }


def seconds(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - started


def summary(times: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(times), 3),
        "min": round(min(times), 3),
        "max": round(max(times), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--vault", type=Path, help="a vault to copy and index (default: the demo vault)")
    parser.add_argument("--against", type=Path, help="a folder with another knowledge_desktop to compare")
    args = parser.parse_args()
    env = installed_env()
    versions = {"after": env}
    if args.against is not None:
        import compileall

        compileall.compile_dir(args.against / "knowledge_desktop", quiet=1)
        versions = {"before": {**env, "PYTHONPATH": str(args.against)}, "after": env}
    with tempfile.TemporaryDirectory() as tmp:
        # One indexed vault for each version: an index written by other code is rebuilt on
        # open (engine/store/schema.py), which would make every run a cold one.
        vaults: dict[str, str] = {}
        for name, version_env in versions.items():
            vault = Path(tmp) / name
            shutil.copytree(args.vault or DEMO, vault, ignore=shutil.ignore_patterns(".knowledge"))
            subprocess.run(
                [sys.executable, "-m", "knowledge_desktop.cli", "scan", str(vault)],
                stdout=subprocess.DEVNULL,
                check=True,
                env=version_env,
            )
            vaults[name] = str(vault)
        result: dict[str, dict[str, dict[str, float]]] = {}
        for what in commands("VAULT"):
            times: dict[str, list[float]] = {name: [] for name in versions}
            for _ in range(args.runs):
                for name, version_env in versions.items():
                    times[name].append(seconds(commands(vaults[name])[what], version_env))
            result[what] = {name: summary(t) for name, t in times.items()}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
