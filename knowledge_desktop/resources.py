"""Where the shipped resources (default ontology, demo vault, icons) live.

In a source checkout or an editable install they are the repository's
`resources/` folder; in a PyInstaller bundle they sit under `sys._MEIPASS`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def resource_root() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    return resource_root().joinpath(*parts)


def demo_vault_path() -> Path:
    return resource_path("demo-vault")
