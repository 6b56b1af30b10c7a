"""A Streamlit script for ``scripts/capture_chart_themes.py``: one ``st.plotly_chart`` to read back.

The figure uses the app's default template (``ui.theme``) and a marker colour list of every colour
placeholder of Streamlit's Plotly theme, ``#000001`` … ``#000040``, so the browser shows what each
becomes in the active theme.
"""

import sys
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ui import theme  # sets the app's default template

PLACEHOLDERS = [f"#0000{i:02d}" for i in range(1, 41)]
figure = go.Figure(go.Scatter(x=list(range(40)), y=[0] * 40, mode="markers", marker={"color": PLACEHOLDERS}))
figure.update_layout(title="probe", font={"color": theme.INK})
st.plotly_chart(figure, key="probe")
