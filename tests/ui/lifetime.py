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


def python_owned_qt_objects() -> dict[int, QObject]:
    """Live Qt objects that Python owns, so that collecting their wrapper deletes them.

    The census holds each object, so none of their ids can be reused by a new object
    while it lives: an object made later is never mistaken for one counted here."""
    return {
        id(obj): obj
        for obj in gc.get_objects()
        if isinstance(obj, QObject) and Shiboken.isValid(obj) and Shiboken.ownedByPython(obj)
    }


def made_since(before: dict[int, QObject], ignore: frozenset[str] = frozenset()) -> list[str]:
    """The class names of Python-owned Qt objects alive now that `before` did not count."""
    now = python_owned_qt_objects()
    names = (type(o).__qualname__ for k, o in now.items() if k not in before)
    return sorted(name for name in names if name not in ignore)


def delete_queued() -> None:
    """Delete now, on the UI thread, what `deleteLater` queued (closed windows, dialogs)."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def settle_deletions() -> None:
    """Delete what `deleteLater` queued and collect cycles, here on the UI thread."""
    delete_queued()
    gc.collect()
