"""The window's panes: catalog, record, backlinks, timeline, diagnostics, search."""
