"""The few colours the rendered record needs, taken from the window's palette.

The renderer cannot ask Qt for the palette (it runs on a worker and must
not import Qt), so the pane reads the palette on the UI thread and hands the
colours over as plain strings. Status colours (error, warning, success) have
no palette role; they come in a light and a dark variant so both palettes
keep them readable.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Colors:
    text: str = "#1f2328"
    muted: str = "#656d76"
    base: str = "#ffffff"
    alt_base: str = "#f3f4f6"
    border: str = "#d0d7de"
    link: str = "#0a58ca"
    dark: bool = False

    @property
    def error(self) -> str:
        return "#ff7b72" if self.dark else "#b42318"

    @property
    def warning(self) -> str:
        return "#e3b341" if self.dark else "#9a6700"

    @property
    def success(self) -> str:
        return "#56d364" if self.dark else "#1a7f37"

    def tint(self, tone: str) -> str:
        """A pale background for a banner of the given tone (error, warning, info, success, neutral)."""
        light = {
            "error": "#fdecea",
            "warning": "#fff4d6",
            "info": "#e8f0fe",
            "success": "#e6f4ea",
            "neutral": "#eaeef2",
        }
        dark = {
            "error": "#4a2326",
            "warning": "#45391a",
            "info": "#1f3352",
            "success": "#1e3d29",
            "neutral": "#343a42",
        }
        return (dark if self.dark else light).get(tone, self.alt_base)

    @property
    def neutral(self) -> str:
        """Grey text for a badge that states a fact without judging it (neither good nor bad,
        and not the link colour, which would make it read like something to click)."""
        return "#c9d1d9" if self.dark else "#57606a"

    def tone(self, tone: str) -> str:
        """The foreground colour of a tone."""
        return {
            "error": self.error,
            "warning": self.warning,
            "success": self.success,
            "neutral": self.neutral,
        }.get(tone, self.link)
