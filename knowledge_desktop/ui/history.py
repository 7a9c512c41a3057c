"""Back and forward through the records a user opened, like a browser's history."""

from __future__ import annotations

LIMIT = 200
WELCOME = "welcome:"
"""The welcome page's place in the history (no record path starts so): Back from a record
opened by one of its links returns to it."""


class History:
    def __init__(self) -> None:
        self._items: list[str] = []
        self._at = -1

    @property
    def current(self) -> str | None:
        return self._items[self._at] if self._at >= 0 else None

    def push(self, key: str) -> None:
        """Visit `key`: forward entries are dropped, a repeat of the current entry is not stored."""
        if self.current == key:
            return
        del self._items[self._at + 1 :]
        self._items.append(key)
        if len(self._items) > LIMIT:
            del self._items[0]
        self._at = len(self._items) - 1

    def can_back(self) -> bool:
        return self._at > 0

    def can_forward(self) -> bool:
        return self._at < len(self._items) - 1

    def back(self) -> str | None:
        if not self.can_back():
            return None
        self._at -= 1
        return self.current

    def forward(self) -> str | None:
        if not self.can_forward():
            return None
        self._at += 1
        return self.current

    def replace(self, old: str, new: str | None) -> None:
        """A file moved (new path) or went away (None): history follows it."""
        if new is None:
            keep = [i for i, item in enumerate(self._items) if item != old]
            at = max((n for n, i in enumerate(keep) if i <= self._at), default=-1)
            self._items = [self._items[i] for i in keep]
            self._at = at if self._items else -1
            return
        self._items = [new if item == old else item for item in self._items]
