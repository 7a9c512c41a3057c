"""Reusable widgets the panes are built from."""
