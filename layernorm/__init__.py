"""LayerNorm Lab's NumPy core: every normalization the lessons show, written out.

Pure functions over float64 statistics; no Streamlit, no Plotly. See
:mod:`layernorm.core` for the letters used in shapes (N, T, d, C).
"""

from layernorm.activations import MiniLMRecording, load_minilm_recording
from layernorm.backward import batch_norm_backward, layer_norm_backward, rms_norm_backward
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
    std,
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
from layernorm.labs.precision import DtypeRun, PrecisionSweep, layer_norm_in_dtype, precision_sweep
from layernorm.presets import PRESETS, make_preset
from layernorm.variants import (
    EPS_PRESETS,
    EpsPreset,
    RecipeComparison,
    compare_recipe,
    compare_rms_placement,
    layer_norm_eps_outside,
    layer_norm_recipe,
    rms_norm_eps_outside,
)

__all__ = [
    "DEFAULT_EPS",
    "DEFAULT_MOMENTUM",
    "EPS_PRESETS",
    "MAX_VALUES",
    "PRESETS",
    "DtypeRun",
    "EpsPreset",
    "InputError",
    "LayerNormSteps",
    "MiniLMRecording",
    "PrecisionSweep",
    "RecipeComparison",
    "ZeroVarianceError",
    "batch_norm_backward",
    "batch_norm_eval",
    "batch_norm_train",
    "compare_recipe",
    "compare_rms_placement",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "layer_norm_backward",
    "layer_norm_eps_outside",
    "layer_norm_in_dtype",
    "layer_norm_recipe",
    "layer_norm_steps",
    "load_minilm_recording",
    "make_preset",
    "max_abs_diff",
    "mean",
    "parse_vector_text",
    "precision_sweep",
    "read_csv_vector",
    "read_npy_vector",
    "read_uploaded_vector",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_eps_outside",
    "scale_shift",
    "standardize",
    "std",
    "variance",
    "vector_from_table",
]
