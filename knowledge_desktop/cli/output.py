"""How a command prints: the JSON shape with `--json`, else a human summary.

`safe` is what every field of vault content or of a file name on a human line goes
through (the body of `show`, multi-line, through `block`): control characters (ESC,
BEL, CR, a newline in a file name, C1 bytes) and bidirectional controls are shown as
escapes, so nothing drives the terminal and each listed row is one line. JSON output
stays exact (`json_text`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from knowledge_desktop.engine.visible_text import json_text, one_line

safe = one_line


def emit(args: argparse.Namespace, payload: Any, human: Callable[[], str]) -> None:
    if args.json:
        sys.stdout.write(json_text(payload) + "\n")
    else:
        sys.stdout.write(human() + "\n")
