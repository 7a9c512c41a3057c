"""Code-symbol discovery benchmark (issue 31 §5): a generated repository of N code files,
discovered cold, then again after one file changes.

    python bench/symbols.py [--files 5000] [--runs 3] [--keep DIR] [--json]

The repository (a temporary folder, or `--keep DIR`) holds Python modules (classes with
methods, functions, constants, `__all__` in every third, package `__init__` files that
re-export) and TypeScript / JavaScript modules (exported functions, classes, interfaces,
consts, re-exports), half and half, about 120–200 lines each, deterministic. Measured in
this process after imports:

* cold: `discover_symbols(repo)` with an empty cache (every file read and parsed);
* again: a kept cache after one file is rewritten (one file parsed), its snapshot equal
  to a fresh cold one (checked every run).

Budget (issue 31): discovery of 5,000 files within the extraction's own budget, 5 s for
a full extraction (bench/extraction.py). The medians of `--runs` runs are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_desktop.engine.extraction.symbols.discovery import SymbolCache, discover_symbols  # noqa: E402


def python_module(i: int) -> str:
    parts = [f'"""Module {i}."""\n\nimport os\nfrom typing import Any\n\n']
    if i % 3 == 0:
        parts.append(f"__all__ = ['Service{i}', 'build_{i}', 'LIMIT_{i}']\n\n")
    parts.append(f"LIMIT_{i} = {i}\n_cache: dict[str, Any] = {{}}\n\n\n")
    for c in range(3):
        parts.append(f'class Service{i}x{c}:\n    """A service."""\n\n')
        for m in range(6):
            parts.append(f"    def method_{m}(self, value: int) -> int:\n        return value + {m}\n\n")
    parts.append(f"class Service{i}:\n    pass\n\n\n")
    for f in range(8):
        parts.append(f"def build_{i}_{f}(path: str) -> str:\n    return os.path.join(path, '{f}')\n\n\n")
    parts.append(f"def build_{i}() -> None:\n    pass\n")
    return "".join(parts)


def script_module(i: int) -> str:
    parts = [f"import {{ helper{i} }} from './helpers';\n\n"]
    parts.append(f"export const LIMIT_{i} = {i};\n\nexport interface Options{i} {{\n  size: number;\n}}\n\n")
    for c in range(3):
        parts.append(f"export class Widget{i}x{c} {{\n")
        for m in range(6):
            parts.append(f"  method{m}(value: number): number {{\n    return value + {m};\n  }}\n")
        parts.append("}\n\n")
    for f in range(8):
        parts.append(
            f"export function render{i}_{f}(x: Options{i}): string {{\n  return String(x.size);\n}}\n\n"
        )
    parts.append(f"export {{ helper{i} }};\nexport {{ Other{i} }} from './other';\n")
    parts.append(f"export default function main{i}() {{}}\n")
    return "".join(parts)


def write_repo(root: Path, n: int) -> None:
    for i in range(n):
        pkg = root / "src" / f"pkg{i // 100}"
        if i % 2 == 0:
            path = pkg / f"mod{i}.py"
            text = python_module(i)
        else:
            path = root / "web" / f"area{i // 100}" / f"mod{i}.ts"
            text = script_module(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if i % 100 == 0:
            (pkg / "__init__.py").parent.mkdir(parents=True, exist_ok=True)
            (pkg / "__init__.py").write_text(f"from .mod{i} import Service{i}\n")


def measure(root: Path, runs: int) -> dict[str, Any]:
    cold: list[float] = []
    cpu: list[float] = []
    again: list[float] = []
    snapshot: dict[str, Any] = {}
    target = next(iter(sorted(root.rglob("*.py"))))
    for run in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        first = discover_symbols(root, SymbolCache())
        cold.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        snapshot = first.as_json()
        cache = SymbolCache()
        discover_symbols(root, cache)
        target.write_text(target.read_text() + f"\n\ndef added_{run}() -> None:\n    pass\n")
        start = time.perf_counter()
        second = discover_symbols(root, cache)
        again.append(time.perf_counter() - start)
        if cache.parsed != 1 or second.as_json() != discover_symbols(root).as_json():
            raise SystemExit("re-discovery differs from a fresh run")
    coverage = snapshot["coverage"]
    return {
        "files": coverage["files"],
        "modules": coverage["modules"],
        "symbols": coverage["symbols"],
        "bytes": coverage["bytes"],
        "status": coverage["status"],
        "coldS": round(statistics.median(cold), 3),
        "coldRuns": [round(x, 3) for x in cold],
        "coldCpuS": round(statistics.median(cpu), 3),
        "againS": round(statistics.median(again), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "repo"
        start = time.perf_counter()
        write_repo(root, args.files)
        made = time.perf_counter() - start
        load = os.getloadavg()[0]
        result = {
            "machine": platform.platform(),
            "load1": round(load, 2),
            "generatedS": round(made, 2),
            **measure(root, args.runs),
        }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:<12} {value}")


if __name__ == "__main__":
    main()
