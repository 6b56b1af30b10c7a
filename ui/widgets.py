"""Controls shared by several pages (one definition, one widget key, one meaning)."""

from __future__ import annotations

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
