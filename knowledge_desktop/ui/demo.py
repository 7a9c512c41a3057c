"""The demo vault as a person gets it: a copy in their own data folder (issue 29, §6, §8).

The bundled demo sits in the install folder, which may be read-only and is
replaced by the next install; opening it in place wrote `.knowledge/` there
and lost the person's edits at the next upgrade. `demo_copy` copies it once
into the user's data folder (platformdirs) and reopens that copy afterwards,
edits and all. The copy is made beside its final place and renamed, so a copy
cut short is never taken for the demo.

`is_demo` tells the window that a vault is the demo (by its path: the copy,
or the bundled folder itself), so that its deliberately broken files are
labelled as examples rather than alarms.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from knowledge_desktop.engine.vault_state import APP_DIR
from knowledge_desktop.resources import demo_vault_path

COPY_NAME = "demo-vault"


def demo_copy_path() -> Path:
    """Where the person's copy of the demo vault lives (it may not exist yet)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_DIR)) / COPY_NAME


def demo_copy() -> Path:
    """The person's copy of the demo vault, made from the bundled one the first time."""
    target = demo_copy_path()
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".demo-", dir=target.parent))
    try:
        shutil.copytree(demo_vault_path(), staging / COPY_NAME, ignore=shutil.ignore_patterns(".knowledge"))
        (staging / COPY_NAME).rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def is_demo(root: Path) -> bool:
    """Whether `root` is the demo vault: the person's copy or the bundled folder."""
    try:
        here = root.resolve()
        return here in (demo_copy_path().resolve(), demo_vault_path().resolve())
    except OSError:
        return False
