"""The knowledge API for extensions, in Python (issue 16 §3): `open_extension` gives one
extension's view of a vault, and `tools.TOOLS` is the one table of its methods that the MCP
server (`knowledge mcp`) exposes."""

from knowledge_desktop.api.extension import Extension, open_extension

__all__ = ["Extension", "open_extension"]
