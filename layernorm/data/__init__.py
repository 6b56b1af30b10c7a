"""Readers of shipped and installed data (more readers move here; see DESIGN.md)."""
