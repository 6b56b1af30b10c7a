"""The page of benchmarks/bench_elements.py: a fragment with one slider and twenty elements of one kind.

``?kind=<kind>`` picks the kind; every element shows the slider's value, so each press changes all
twenty (``static_markdown`` repeats the same text: re-sent but unchanged). ``kind=none`` is the bare
fragment. Served by the benchmark with the lab's flags; never part of the app.
"""

import numpy as np
import pandas as pd
import streamlit as st

KIND = st.query_params.get("kind", "none")
N = 20


@st.fragment
def section() -> None:
    k = st.slider("k", 1, 20, 3, key="k")
    for i in range(N):
        v = k * (i + 1) / 7
        if KIND == "markdown":
            st.markdown(f"Feature **{i}** moves to {v:.4f}.")
        elif KIND == "static_markdown":
            st.markdown(f"Feature **{i}** stays where it is.")
        elif KIND == "caption":
            st.caption(f"Feature {i} moves to {v:.4f}.")
        elif KIND == "latex":
            formula = rf"\hat x_{{{i}}} = \frac{{x_{{{i}}} - \mu}}{{\sqrt{{\sigma^2 + \varepsilon}}}}"
            st.latex(rf"{formula} = {v:.4f}")
        elif KIND == "metric":
            st.metric(f"x̂{i}", f"{v:.4f}")
        elif KIND == "metric_in_columns":
            if i % 4 == 0:
                cols = st.columns(4)
            cols[i % 4].metric(f"x̂{i}", f"{v:.4f}")
        elif KIND == "radio":
            st.radio(f"choice {i}", ["a", "b", "c"], key=f"r{i}", horizontal=True)
        elif KIND == "button":
            st.button(f"button {i}", key=f"b{i}")
        elif KIND == "table":
            st.table(pd.DataFrame({"x": np.round([v, v + 1, v + 2], 4), "name": ["a", "b", "c"]}))


section()
