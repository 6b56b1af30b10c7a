"""Simulations and experiments the pages run on top of the core (more labs move here; see DESIGN.md)."""
