"""LayerNorm Lab's NumPy core: every normalization the lessons show, written out.

Pure functions over float64 statistics; no Streamlit, no Plotly. See
:mod:`layernorm.core` for the letters used in shapes (N, T, d, C).
"""

from layernorm._checks import ResultRangeError
from layernorm.backward import (
    batch_norm_backward,
    layer_norm_backward,
    layer_norm_input_grad,
    rms_norm_backward,
)
from layernorm.batch import DEFAULT_MOMENTUM, batch_norm_eval, batch_norm_train
from layernorm.core import (
    DEFAULT_EPS,
    layer_norm,
    max_abs_diff,
    mean,
    scale_shift,
    standardize,
    std,
    variance,
)
from layernorm.data.activations import MiniLMRecording, load_minilm_recording
from layernorm.data.files import (
    VectorFromFile,
    read_csv_file,
    read_csv_vector,
    read_npy_vector,
    read_uploaded_file,
    read_uploaded_vector,
)
from layernorm.data.inputs import (
    MAX_VALUES,
    parse_vector_text,
    table_text,
    typed_text_note,
    vector_from_table,
)
from layernorm.data.numbers import InputError, number_text, parse_number
from layernorm.data.presets import PRESETS, make_near_constant, make_preset
from layernorm.eps_presets import EPS_PRESETS, EpsPreset
from layernorm.exact import ZeroVarianceError
from layernorm.family import group_norm, instance_norm, rms_norm
from layernorm.gradient_check import FiniteDifferenceCheck, finite_difference_check
from layernorm.jacobian import (
    JacobianNormCurve,
    LayerNormBackwardTerms,
    LayerNormJacobian,
    layer_norm_backward_terms,
    layer_norm_jacobian,
    layer_norm_jacobian_facts,
    layer_norm_jacobian_norm_vs_eps,
)
from layernorm.labs.geometry import (
    InvarianceCheck,
    InvarianceCurve,
    NormalizedCloud,
    invariance_check,
    invariance_curve,
    normalized_cloud,
    x_hat_norm_squared,
)
from layernorm.labs.precision import DtypeRun, PrecisionSweep, layer_norm_in_dtype, precision_sweep
from layernorm.rms_variants import RmsVariantRow, default_rms_eps, rms_norm_variant, rms_variants
from layernorm.steps import LayerNormSteps, layer_norm_steps, layer_norm_x_hat
from layernorm.variants import (
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
    "FiniteDifferenceCheck",
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
    "ResultRangeError",
    "RmsVariantRow",
    "VectorFromFile",
    "ZeroVarianceError",
    "batch_norm_backward",
    "batch_norm_eval",
    "batch_norm_train",
    "compare_recipe",
    "compare_rms_placement",
    "default_rms_eps",
    "finite_difference_check",
    "group_norm",
    "instance_norm",
    "invariance_check",
    "invariance_curve",
    "layer_norm",
    "layer_norm_backward",
    "layer_norm_backward_terms",
    "layer_norm_eps_outside",
    "layer_norm_in_dtype",
    "layer_norm_input_grad",
    "layer_norm_jacobian",
    "layer_norm_jacobian_facts",
    "layer_norm_jacobian_norm_vs_eps",
    "layer_norm_recipe",
    "layer_norm_steps",
    "layer_norm_x_hat",
    "load_minilm_recording",
    "make_near_constant",
    "make_preset",
    "max_abs_diff",
    "mean",
    "normalized_cloud",
    "number_text",
    "parse_number",
    "parse_vector_text",
    "precision_sweep",
    "read_csv_file",
    "read_csv_vector",
    "read_npy_vector",
    "read_uploaded_file",
    "read_uploaded_vector",
    "rms_norm",
    "rms_norm_backward",
    "rms_norm_eps_outside",
    "rms_norm_variant",
    "rms_variants",
    "scale_shift",
    "standardize",
    "std",
    "table_text",
    "typed_text_note",
    "variance",
    "vector_from_table",
    "x_hat_norm_squared",
]
