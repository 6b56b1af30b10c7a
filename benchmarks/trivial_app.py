"""The yardstick of benchmarks/bench_browser.py: one slider, one small Plotly line that follows it.

Run by the benchmark with the same `streamlit run` flags (and the same .streamlit/config.toml) as app.py.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

k = st.slider("k", 1, 20, 3, key="k")
x = np.linspace(0.0, 2.0 * np.pi, 200)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(x * k), mode="lines")), key="chart")
