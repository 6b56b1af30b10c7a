"""Streamlit and Plotly glue for LayerNorm Lab (the maths lives in ``layernorm``)."""
