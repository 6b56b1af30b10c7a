"""Keep the server's long-lived objects (imported modules) out of Python's full garbage collections.

Streamlit's forced ``gc.collect(2)`` after every rerun is off (``.streamlit/config.toml``); Python's
own collector still walks the whole heap now and then (a generation-2 collection). Most of that heap
is what the imports made — NumPy, Plotly's validators, the lab's modules — and none of it is ever
garbage. :func:`freeze_imports` moves it, once per server process, to the permanent generation
(``gc.freeze``), so those walks cover only what the reruns made: measured in AppTest on Gradients,
a generation-2 collection took ~55 ms before and ~8 ms after.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_imports() -> None:
    """``gc.freeze()`` once per process: what exists now is kept out of later collections.

    Called by ``app.py`` after its imports, on the first run of a fresh server. Objects of that
    first run are frozen too (they are never freed: a bounded, one-off cost). Source: Python's
    :func:`gc.freeze` (3.7+), meant for exactly this (a server's long-lived startup state).
    """
    global _frozen
    if not _frozen:
        gc.freeze()
        _frozen = True
