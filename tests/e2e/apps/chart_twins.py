"""One figure drawn twice: by ``st.plotly_chart`` (the browser applies Streamlit's chart theme) and
by ``ui.plot.show`` (the in-place chart, with the theme from ``static/chart_themes.json``).

``tests/e2e/test_in_place_charts.py`` compares what plotly.js was given for each. The test copies
this script into a temporary folder beside a link to the repository's ``static/`` (Streamlit serves
the ``static`` folder beside the main script).
"""

import os
import sys

import numpy as np
import streamlit as st

sys.path.insert(0, os.environ["LAB_ROOT"])
from ui import charts, plot  # after the path to the repository

x = np.array([0.5, -1.25, 2.0, 0.75])
figure = charts.feature_chart(
    [("x", x)], "Twin chart: x and its mean", hlines=[("mu", float(x.mean()), "μ = 0.5")]
)
st.plotly_chart(figure, key="twin_streamlit")
plot.show(figure, key="twin_in_place")
