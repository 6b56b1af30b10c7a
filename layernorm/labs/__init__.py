"""Simulations and experiments the pages run on top of the core (docs/ARCHITECTURE.md)."""
