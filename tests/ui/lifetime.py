"""What a test can check of Qt objects' lifetimes: which ones Python alone owns.

A Qt object made without a parent belongs to its Python wrapper; when the wrapper
is only kept by a reference cycle, the cycle collector deletes the object in
whichever thread it runs, often a worker, which Qt forbids
(tests/ui/test_window_lifetime.py says what that did).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from shiboken6 import Shiboken

TEST_SCOPED = frozenset({"QSettings", "QAbstractItemModelTester"})
"""Made by the tests themselves (a settings file per test, Qt's model tester) and kept
by pytest until the test item is torn down."""


def python_owned_qt_objects() -> dict[int, str]:
    """Live Qt objects that Python owns, so that collecting their wrapper deletes them."""
    found: dict[int, str] = {}
    for obj in gc.get_objects():
        if isinstance(obj, QObject) and Shiboken.isValid(obj) and Shiboken.ownedByPython(obj):
            found[id(obj)] = type(obj).__qualname__
    return found


def delete_queued() -> None:
    """Delete now, on the UI thread, what `deleteLater` queued (closed windows, dialogs)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def settle_deletions() -> None:
    """Delete what `deleteLater` queued and collect cycles, here on the UI thread."""
    delete_queued()
    gc.collect()
