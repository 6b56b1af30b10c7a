"""One palette for the whole app: each quantity keeps its colour on every page.

Okabe & Ito's colour-blind-safe palette; the names are the quantities, not the hues.
"""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

COLORS: dict[str, str] = {
    "x": "#0072B2",  # input vector: blue
    "mu": "#E69F00",  # mean: orange
    "sigma_band": "#56B4E9",  # ±σ band: sky blue (drawn translucent)
    "centered": "#7F7F7F",  # x − μ: grey
    "x_hat": "#009E73",  # normalized x̂: bluish green
    "y": "#D55E00",  # output y: vermillion
    "gamma": "#CC79A7",  # γ (and β, dashed): reddish purple
    "beta": "#CC79A7",
    "batch": "#8C564B",  # BatchNorm, when compared with LayerNorm: brown
    "warn": "#C00000",
}
# Names of the quantities as shown in legends and tables.
LABELS: dict[str, str] = {
    "x": "x (input)",
    "mu": "μ (mean)",
    "sigma_band": "μ ± σ",
    "centered": "x − μ",
    "x_hat": "x̂ (normalized)",
    "y": "y = γ·x̂ + β",
    "gamma": "γ (scale)",
    "beta": "β (shift)",
}
FONT_SIZE = 16  # readable from the back row when projected
# Set once: passing template= to every figure makes Plotly re-validate it each time (~10 ms a chart).
pio.templates.default = "plotly_white"


def base_layout(
    fig: go.Figure, title: str, *, x_title: str = "", y_title: str = "", height: int = 380
) -> go.Figure:
    """Apply the app's common layout (font, margins, legend on top) and return ``fig``."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": FONT_SIZE + 2}},
        font={"size": FONT_SIZE},
        height=height,
        margin={"l": 60, "r": 20, "t": 70, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        xaxis_title=x_title,
        yaxis_title=y_title,
        bargap=0.15,
    )
    return fig
