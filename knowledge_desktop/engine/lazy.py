"""Modules imported on first use rather than with the module that names them.

A long-lived reader pays for every import before it can answer (issue 28 §3: an MCP
server's start to first answer). Some dependencies are heavy and needed only by a few
paths — pygit2 by the history and checkpoints, never by a search — so the modules that
use them bind a stand-in that imports the real module at the first attribute read.
`import_module` takes the import lock, so threads racing for the first read get the
same module. Type checkers see the real module (import it under TYPE_CHECKING).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """Stands for the module of its name; imports it when an attribute is first read."""

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.__name__), attr)


def lazy_module(name: str) -> Any:
    """A stand-in for the module `name` (see the module docstring)."""
    return LazyModule(name)


def installed(name: str) -> bool:
    """Whether the module `name` could be imported, without importing it."""
    return importlib.util.find_spec(name) is not None
