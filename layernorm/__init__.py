"""LayerNorm Lab's NumPy core: every normalization the lessons show, written out.

Pure functions over float64 statistics; no Streamlit, no Plotly. See
:mod:`layernorm.core` for the letters used in shapes (N, T, d, C).
"""

from layernorm.activations import MiniLMRecording, load_minilm_recording
from layernorm.backward import (
    JacobianNormCurve,
    LayerNormBackwardTerms,
    LayerNormJacobian,
    batch_norm_backward,
    layer_norm_backward,
    layer_norm_backward_terms,
    layer_norm_jacobian,
    layer_norm_jacobian_facts,
    layer_norm_jacobian_norm_vs_eps,
    rms_norm_backward,
)
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
from layernorm.labs.geometry import (
    InvarianceCheck,
    InvarianceCurve,
    NormalizedCloud,
    invariance_check,
    invariance_curve,
    normalized_cloud,
    x_hat_norm_squared,
)
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
    "InvarianceCheck",
    "InvarianceCurve",
    "JacobianNormCurve",
    "LayerNormBackwardTerms",
    "LayerNormJacobian",
    "LayerNormSteps",
    "MiniLMRecording",
    "NormalizedCloud",
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
    "invariance_check",
    "invariance_curve",
    "layer_norm",
    "layer_norm_backward",
    "layer_norm_backward_terms",
    "layer_norm_eps_outside",
    "layer_norm_in_dtype",
    "layer_norm_jacobian",
    "layer_norm_jacobian_facts",
    "layer_norm_jacobian_norm_vs_eps",
    "layer_norm_recipe",
    "layer_norm_steps",
    "load_minilm_recording",
    "make_preset",
    "max_abs_diff",
    "mean",
    "normalized_cloud",
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
    "x_hat_norm_squared",
]
