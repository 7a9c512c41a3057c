"""Which filesystem holds the vault, and whether inotify hears changes on it.

inotify reports only changes made through this machine's kernel. On a
network or FUSE filesystem another machine (or a VM's host) can change the
vault without a single event, so the watcher polls there from the start
instead of trusting a silence it cannot check. The mount table is read as
text, so tests can hand in a fake /proc.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

UNTRUSTED_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "afs",
        "9p",
        "drvfs",
        "virtiofs",
        "sshfs",
        "davfs",
        "fuse",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
    }
)
"""Filesystems where changes made by another machine (or the host of a VM) do
not produce inotify events. `fuse.*` subtypes are untrusted too; `fuseblk`
(local disks such as NTFS through ntfs-3g) is trusted."""

_MOUNT_ESCAPE = re.compile(r"\\([0-7]{3})")


def filesystem_type(path: Path, mounts_text: str) -> str | None:
    """The type of the filesystem holding `path`, from /proc/self/mounts text.

    The longest mount point that contains the path wins (later lines win ties,
    as a later mount hides an earlier one).
    """
    target = os.path.realpath(path)
    best: tuple[int, str] | None = None
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = _MOUNT_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
        inside = point in ("/", target) or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= best[0]):
            best = (len(point), fields[2])
    return None if best is None else best[1]


def untrusted_filesystem(fs_type: str | None) -> bool:
    if fs_type is None:
        return False
    return fs_type in UNTRUSTED_FILESYSTEMS or fs_type.startswith("fuse.")


def vault_filesystem(root: Path, proc_root: Path) -> str | None:
    """The type of the filesystem holding `root`, from `proc_root`/self/mounts."""
    try:
        mounts = (proc_root / "self" / "mounts").read_text("utf-8", errors="replace")
    except OSError:
        mounts = ""
    return filesystem_type(root, mounts)
