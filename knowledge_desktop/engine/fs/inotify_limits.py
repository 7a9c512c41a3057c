"""The kernel's inotify limits, as the watcher meets them.

watchdog puts one inotify watch on every folder and silently skips the
folders it cannot watch once the per-user limit is reached (only a failure
on the root itself is raised), so the watcher counts folders against the
limit before it starts, and polls instead when the vault has more. When
setting up fails anyway, `describe_os_error` says which limit to raise.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path


def count_folders(root: Path, stop_after: int) -> int:
    """Folders under `root` (itself included, hidden ones too, links not followed),
    counting no further than `stop_after` + 1: watchdog puts one inotify watch on each."""
    count = 0
    stack = [str(root)]
    while stack and count <= stop_after:
        folder = stack.pop()
        count += 1
        try:
            with os.scandir(folder) as entries:
                stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return count


def describe_os_error(exc: OSError) -> str:
    """A status-bar sentence for a failure to set up inotify."""
    if exc.errno == errno.ENOSPC:
        return "the system's limit of watched folders is reached (raise fs.inotify.max_user_watches)"
    if exc.errno in (errno.EMFILE, errno.ENFILE):
        return "the system's limit of file watchers is reached (raise fs.inotify.max_user_instances)"
    return f"the folder cannot be watched ({exc.strerror or exc})"


def watch_limit(proc_root: Path) -> int | None:
    """The per-user limit of inotify watches, None when it cannot be read."""
    path = proc_root / "sys" / "fs" / "inotify" / "max_user_watches"
    try:
        return int(path.read_text("ascii").strip())
    except (OSError, ValueError):
        return None
