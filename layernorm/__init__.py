"""LayerNorm Lab's NumPy core: every normalization the lessons show, written out.

Pure functions over float64 statistics; no Streamlit, no Plotly. See
:mod:`layernorm.core` for the letters used in shapes (N, T, d, C).
"""

from layernorm.batch import DEFAULT_MOMENTUM, batch_norm_eval, batch_norm_train
from layernorm.core import (
    DEFAULT_EPS,
    LayerNormSteps,
    ZeroVarianceError,
    layer_norm,
    layer_norm_steps,
    max_abs_diff,
    mean,
    scale_shift,
    standardize,
    variance,
)
from layernorm.family import group_norm, instance_norm, rms_norm
from layernorm.inputs import (
    MAX_VALUES,
    InputError,
    parse_vector_text,
    read_csv_vector,
    read_npy_vector,
    read_uploaded_vector,
    vector_from_table,
)
from layernorm.presets import PRESETS, make_preset

__all__ = [
    "DEFAULT_EPS",
    "DEFAULT_MOMENTUM",
    "MAX_VALUES",
    "PRESETS",
    "InputError",
    "LayerNormSteps",
    "ZeroVarianceError",
    "batch_norm_eval",
    "batch_norm_train",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "layer_norm_steps",
    "make_preset",
    "max_abs_diff",
    "mean",
    "parse_vector_text",
    "read_csv_vector",
    "read_npy_vector",
    "read_uploaded_vector",
    "rms_norm",
    "scale_shift",
    "standardize",
    "variance",
    "vector_from_table",
]
