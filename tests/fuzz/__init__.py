"""Property-based fuzzing of LayerNorm Lab's whole input surface (Hypothesis + Streamlit AppTest).

``make test`` runs a bounded part (``FUZZ_CASES``, default 300 app cases, plus the readers);
``make fuzz`` runs 10,000 cases or more (``scripts/fuzz.py``). See ``tests/fuzz/machine.py``.
"""
