"""The yardstick drawn the lab's way: the trivial app's slider and line, through ``ui.plot.show``.

``st.plotly_chart`` gives a chart a new element identity whenever its figure changes (Streamlit 1.67
hashes the figure into the id), so the browser unmounts the old plot and draws a new one on every
rerun. The lab draws every chart with ``ui.plot.show`` instead: a small ``st.components.v2``
component that keeps one plot and calls ``Plotly.react`` on it. ``bench_browser.py --in-place``
times this app next to the trivial app in the same run: what one in-place chart costs against one
remounted chart.

The benchmark copies this script into a temporary folder beside a link to the repository's
``static/`` (plotly.js and the chart theme) and names the repository in ``LAB_ROOT``.
"""

import os
import sys

import numpy as np
import plotly.graph_objects as go
import streamlit as st

sys.path.insert(0, os.environ["LAB_ROOT"])
from ui import plot  # after the path to the repository

k = st.slider("k", 1, 20, 3, key="k")
x = np.linspace(0.0, 2.0 * np.pi, 200)
plot.show(go.Figure(go.Scatter(x=x, y=np.sin(x * k), mode="lines")), key="chart")
