"""Developer scripts (not used by the app at run time)."""
