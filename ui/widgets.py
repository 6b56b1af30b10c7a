"""Controls shared by several pages (one definition, one widget key, one meaning)."""

from __future__ import annotations

import numpy as np

import layernorm as ln

PLACEMENT_NAMES = {
    "post": "post-LN: after the add (BERT)",
    "pre": "pre-LN: before the sublayer (GPT-2, LLaMA)",
}


def placement_control(label: str, *, disabled: bool = False, help: str | None = None) -> str:
    """Where LayerNorm sits in a residual block; the same session-wide choice on every page that shows it."""
    from ui import controls

    choice = controls.choice(
        "radio",
        label,
        list(PLACEMENT_NAMES),
        format_func=PLACEMENT_NAMES.__getitem__,
        key="ln_placement",
        name="placement",
        horizontal=True,
        disabled=disabled,
        help=help,
    )
    return str(choice or "post")


SPREADS = [10.0**k for k in range(-8, 1)]  # the nearly constant vector's spreads: 1e-8 … 1


def near_constant_control(
    key: str, default: float, *, d: int, mean: float, seed: int
) -> tuple[float, np.ndarray]:
    """The "Spread of the nearly constant vector" slider, and that vector (``ln.make_near_constant``).

    Returns ``(spread, x)``. Standardize and Gradients show ε taking over such a vector; each page
    keeps its own key and default spread.
    """
    from ui import controls

    spread = float(
        controls.select_slider(
            "Spread of the nearly constant vector",
            SPREADS,
            default,
            key=key,
            name="spread",
            format_func=lambda v: f"{v:.0e}",
        )
    )
    return spread, ln.make_near_constant(d, mean, spread, seed=seed)
