"""The yardstick drawn another way: the trivial app's slider and line, updated in place.

``st.plotly_chart`` gives a chart a new element identity whenever its figure changes (Streamlit 1.67
hashes the figure into the id), so the browser unmounts the old plot and draws a new one on every
rerun. This app sends the same figure to a small ``st.components.v2`` component that keeps one plot
and calls ``Plotly.react`` on it: Plotly updates what changed, in place. ``bench_browser.py
--in-place`` times it next to the trivial app in the same run, to show what an in-place chart would
save on every page (the lab's pages still use ``st.plotly_chart``).

plotly.js is the installed ``plotly`` package's own copy (the version that builds the figure), served
by Streamlit's static file serving: the benchmark copies this script and ``plotly.min.js`` into a
temporary folder (``static/`` beside the script) and starts the server with static serving on. Sent
inline with the component instead, the 4.8 MB script made every rerun slower than a remount.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

UPDATE_IN_PLACE = """
export default function (component) {
  const plot = component.parentElement.querySelector(".in-place");
  const draw = () => globalThis.Plotly.react(
    plot, component.data.figure.data, component.data.figure.layout, {displayModeBar: false, responsive: true}
  );
  if (globalThis.Plotly) return draw();
  globalThis.plotlyLoading ??= new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = "/app/static/plotly.min.js";
    script.onload = resolve;
    document.head.appendChild(script);
  });
  globalThis.plotlyLoading.then(draw);
}
"""
chart = st.components.v2.component(
    "in_place_chart",
    html='<div class="in-place" style="height:450px"></div>',
    js=UPDATE_IN_PLACE,
    isolate_styles=False,  # Plotly puts its styles in the document's head
)

k = st.slider("k", 1, 20, 3, key="k")
x = np.linspace(0.0, 2.0 * np.pi, 200)
figure = go.Figure(go.Scatter(x=x, y=np.sin(x * k), mode="lines"))
chart(data={"figure": figure.to_plotly_json()}, key="chart")
