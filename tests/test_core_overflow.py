"""No public function of the core returns inf or NaN for finite input (issue 28, part 5).

Each public function of ``layernorm`` (every function in ``layernorm.__all__``) and each public
function of ``layernorm.labs`` that takes numbers is called with finite inputs anywhere in
float64's range. It either returns finite numbers everywhere, or raises
:class:`layernorm.ResultRangeError` (or an error its docstring names for that input, such as
:class:`layernorm.ZeroVarianceError` for eps = 0 and a constant row).

The exceptions are the functions whose documented purpose is to show a failure
(:data:`SHOW_FAILURE`): they may return inf or NaN, say so in their docstrings, and the
Precision page shows those values as the failure they are.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layernorm as ln
import layernorm.labs as labs
from layernorm._checks import finite_results
from layernorm.labs import (
    bert,
    blocks,
    bn_frameworks,
    float32_affine,
    fused,
    geometry,
    lenses,
    padding,
    precision,
    precision_status,
    readouts,
    recent_norms,
    running,
    shapes,
    shared_affine,
    torch_kernels,  # noqa: F401  (test_show_failure_functions_say_so finds its functions by module name)
    training,
    transformer_stats,
)

FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)
HUGE = st.sampled_from([2.01e154, -3e200, 1e308, -1.7e308, 1.5e154, 1e-300])
VALUES = st.one_of(FLOATS, HUGE)
EPS = st.one_of(st.sampled_from([1e-5, 0.0, 1e308]), st.floats(0, 1.7e308, allow_subnormal=False))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Functions whose purpose is to show a recipe failing: inf and NaN are their documented output.
SHOW_FAILURE = {
    "layer_norm_in_dtype": "float16/bfloat16/float32 and one-pass runs overflow on purpose (Precision page)",
    "precision.layer_norm_in_dtype": "the same function as layer_norm_in_dtype",
    "precision.precision_sweep": "collects layer_norm_in_dtype's runs; NaN marks a failed row's error",
    "precision_sweep": "the same function as precision.precision_sweep",
    "fused.fused_affine": "s, b and y overflow float32 on purpose; its own property is below",
    "fused.stepwise_affine": "x − μ, x̂ and y overflow float32 on purpose; its own property is below",
    "fused.compare_affine_forms": "holds the two forms' runs; its own property is below",
    "float32_affine.to_float32": "beyond float32's range is ∞ by design; its own property is below",
    "float32_affine.checked_inputs": "an rstd beyond float32 is ∞ (a fused status); own property below",
    # float32 arithmetic as a CPU rounds it: ∞ past float32's range is the IEEE result
    "float32_affine.round_to_float32": "beyond float32's range is ∞ by design (IEEE rounding)",
    "float32_affine.two_sum": "a float64 sum that overflows is ∞ by design",
    "float32_affine.fma32": "a float32 fused multiply-add overflows to ∞ by design",
    "float32_affine.mul_add32": "float32's a·b + c overflows to ∞ by design",
    "float32_affine.shift32": "float32's β − μ·s overflows to ∞ by design",
    "float32_affine.rstd_of": "1/√(var + ε) beyond float32 is ∞ (the fused forms' rstd_overflow)",
    "torch_kernels.rowwise_moments": "PyTorch's float32 σ² is ∞ or NaN where its sums overflow, shown",
    "torch_kernels.layer_norm_kernel": "PyTorch's float32 LayerNorm returns NaN or ∞ there, shown",
}
# Functions that take no numbers a user chooses (text readers, presets, recordings, seeds):
# their inputs are bounded by what they read, and test_core/tests/fuzz cover them.
NOT_NUMERIC = {
    "load_minilm_recording",
    "make_near_constant",
    "make_preset",
    "number_text",
    "parse_number",
    "parse_vector_text",
    "read_csv_file",
    "read_csv_vector",
    "read_npy_vector",
    "read_uploaded_file",
    "read_uploaded_vector",
    "table_text",
    "typed_text_note",
    "vector_from_table",
    "layer_norm_recipe",
    "default_rms_eps",  # a lookup by dtype name
}


def _vec(data: st.DataObject, d: int) -> np.ndarray:
    return np.array(data.draw(st.lists(VALUES, min_size=d, max_size=d)))


def _mat(data: st.DataObject, m: int, d: int) -> np.ndarray:
    return _vec(data, m * d).reshape(m, d)


def _rows(data: st.DataObject, d: int) -> np.ndarray:
    return _mat(data, 2, d)


def _d(data: st.DataObject, lo: int = 2, hi: int = 5) -> int:
    return data.draw(st.integers(lo, hi))


def _eps(data: st.DataObject) -> float:
    return data.draw(EPS)


CALLS: dict[str, Callable[[st.DataObject], Any]] = {}


def call(name: str) -> Callable[[Callable[[st.DataObject], Any]], Callable[[st.DataObject], Any]]:
    def add(f: Callable[[st.DataObject], Any]) -> Callable[[st.DataObject], Any]:
        CALLS[name] = f
        return f

    return add


def _same_d(
    f: Callable[..., Any], *parts: Callable[[st.DataObject, int], np.ndarray], with_eps: bool = True
) -> Callable[[st.DataObject], Any]:
    """``f(part(d), …, eps=ε)`` with one d ≥ 1 for every argument (``_vec``: a vector of d features,
    ``_rows``: a batch of two rows of d); no ε when ``with_eps`` is False."""

    def run(data: st.DataObject) -> Any:
        d = _d(data, 1)
        args = [part(data, d) for part in parts]
        return f(*args, eps=_eps(data)) if with_eps else f(*args)

    return run


for _name, _parts, _with_eps in [
    ("mean", (_rows,), False),
    ("std", (_rows,), False),
    ("scale_shift", (_rows, _vec, _vec), False),
    ("max_abs_diff", (_vec, _vec), False),
    ("standardize", (_rows,), True),
    ("layer_norm_x_hat", (_rows,), True),
    ("layer_norm", (_rows, _vec, _vec), True),  # x, γ, β
    ("layer_norm_steps", (_rows, _vec, _vec), True),
    ("rms_norm", (_rows, _vec), True),
    ("layer_norm_eps_outside", (_vec,), True),
    ("rms_norm_eps_outside", (_vec,), True),
    ("compare_rms_placement", (_vec,), True),
    ("layer_norm_backward", (_rows, _vec, _rows), True),  # x, γ, dy
    ("rms_norm_backward", (_rows, _vec, _rows), True),
    ("layer_norm_backward_terms", (_vec, _vec, _vec), True),
    ("layer_norm_jacobian", (_vec, _vec), True),  # x, γ
    ("layer_norm_jacobian_facts", (_vec, _vec), True),
]:
    CALLS[_name] = _same_d(getattr(ln, _name), *_parts, with_eps=_with_eps)


@call("finite_difference_check")
def _(data: st.DataObject) -> Any:
    d = _d(data, 1)
    x, gamma, beta, dy = (_vec(data, d) for _ in range(4))
    parameter = data.draw(st.sampled_from(["x", "gamma", "beta"]))
    index = data.draw(st.integers(0, d - 1))
    hs = [1e-13, 1e-5, 0.1]
    eps = _eps(data)
    return ln.finite_difference_check(x, gamma, beta, dy, eps=eps, parameter=parameter, index=index, steps=hs)


@call("rms_norm_variant")
def _(data: st.DataObject) -> Any:
    variant = data.draw(st.sampled_from(["rmsnorm", "keras_rms_scaling", "sqrt_of_rms"]))
    return ln.rms_norm_variant(_rows(data, _d(data, 1)), variant, eps=_eps(data))


@call("rms_variants")
def _(data: st.DataObject) -> Any:
    dtype = data.draw(st.sampled_from(["float64", "float32", "bfloat16", "float16"]))
    return ln.rms_variants(_vec(data, _d(data, 1)), dtype=dtype, keras_eps=_eps(data))


@call("variance")
def _(data: st.DataObject) -> Any:
    return ln.variance(_mat(data, 2, _d(data)), ddof=data.draw(st.sampled_from([0, 1])))


@call("batch_norm_train")
def _(data: st.DataObject) -> Any:
    c = _d(data, 1, 3)
    x = _mat(data, _d(data), c)
    mom = data.draw(st.floats(0, 1))
    return ln.batch_norm_train(
        x, _vec(data, c), _vec(data, c), _vec(data, c), np.abs(_vec(data, c)), momentum=mom, eps=_eps(data)
    )


@call("batch_norm_eval")
def _(data: st.DataObject) -> Any:
    c = _d(data, 1, 3)
    x = _mat(data, _d(data, 1), c)
    return ln.batch_norm_eval(
        x, _vec(data, c), _vec(data, c), _vec(data, c), np.abs(_vec(data, c)), eps=_eps(data)
    )


@call("batch_norm_backward")
def _(data: st.DataObject) -> Any:
    c = _d(data, 1, 3)
    n = _d(data)
    return ln.batch_norm_backward(_mat(data, n, c), _vec(data, c), _mat(data, n, c), eps=_eps(data))


@call("group_norm")
def _(data: st.DataObject) -> Any:
    x = _vec(data, 2 * 4 * 2).reshape(2, 4, 2)
    return ln.group_norm(
        x, data.draw(st.sampled_from([1, 2, 4])), _vec(data, 4), _vec(data, 4), eps=_eps(data)
    )


@call("instance_norm")
def _(data: st.DataObject) -> Any:
    return ln.instance_norm(_vec(data, 2 * 2 * 3).reshape(2, 2, 3), eps=_eps(data))


@call("compare_recipe")
def _(data: st.DataObject) -> Any:
    return ln.compare_recipe(
        _vec(data, _d(data)),
        ddof=data.draw(st.sampled_from([0, 1])),
        eps_inside=data.draw(st.booleans()),
        eps=_eps(data),
    )


@call("layer_norm_input_grad")
def _(data: st.DataObject) -> Any:
    d = _d(data, 1)
    x_hat, std = ln.layer_norm_x_hat(_mat(data, 2, d), eps=_eps(data))
    return ln.layer_norm_input_grad(x_hat, std, _mat(data, 2, d))


@call("layer_norm_jacobian_norm_vs_eps")
def _(data: st.DataObject) -> Any:
    return ln.layer_norm_jacobian_norm_vs_eps(_vec(data, _d(data)), np.array([_eps(data), _eps(data)]))


@call("invariance_check")
def _(data: st.DataObject) -> Any:
    d = _d(data)
    x = _vec(data, d)
    return ln.invariance_check(
        x, data.draw(VALUES), data.draw(VALUES), _vec(data, d), _vec(data, d), eps=_eps(data)
    )


@call("invariance_curve")
def _(data: st.DataObject) -> Any:
    return ln.invariance_curve(_vec(data, _d(data)), _vec(data, 3), shift=data.draw(VALUES), eps=_eps(data))


@call("x_hat_norm_squared")
def _(data: st.DataObject) -> Any:
    return ln.x_hat_norm_squared(_mat(data, 2, _d(data)), eps=_eps(data))


@call("normalized_cloud")
def _(data: st.DataObject) -> Any:
    d = data.draw(st.sampled_from([2, 3]))
    return ln.normalized_cloud(d, 20, gamma=_vec(data, d), beta=_vec(data, d), eps=_eps(data))


def _radius_only(f: Callable[..., Any]) -> Callable[[st.DataObject], Any]:
    def run(data: st.DataObject) -> Any:
        return f(abs(data.draw(VALUES)))

    return run


for _name in ("sphere_mesh", "sum_zero_disc_mesh", "sum_zero_circle", "circle_2d", "sum_zero_line"):
    CALLS[f"shapes.{_name}"] = _radius_only(getattr(shapes, _name))


@call("shared_affine.undo_for_token")
def _(data: st.DataObject) -> Any:
    n, d = _d(data, 1, 3), _d(data, 1)
    return shared_affine.undo_for_token(_mat(data, n, d), data.draw(st.integers(0, n - 1)), eps=_eps(data))


@call("lenses.read_lens")
def _(data: st.DataObject) -> Any:
    x = _vec(data, 2 * 2 * 4).reshape(2, 2, 4)
    lens = data.draw(st.sampled_from(["LayerNorm", "BatchNorm", "InstanceNorm", "GroupNorm", "RMSNorm"]))
    return lenses.read_lens(x, (1, 0, 2), lens, groups=2, eps=_eps(data))


@call("precision_status.row_status")
def _(data: st.DataObject) -> Any:
    d = _d(data, 1)
    x, x_hat = _mat(data, 2, d), _mat(data, 2, d)
    mu, var, denom = _vec(data, 2), _vec(data, 2), _vec(data, 2)
    method = data.draw(st.sampled_from(list(precision.METHODS)))
    with np.errstate(all="ignore"):  # as layer_norm_in_dtype calls it: x − μ is taken again
        status = precision_status.row_status(method, x, mu, var, denom, x_hat)
    assert set(status.tolist()) <= set(precision_status.STATUS_WORDS)
    return status


@call("training.check_settings")
def _(data: st.DataObject) -> Any:
    value, lo, hi = data.draw(VALUES), data.draw(VALUES), data.draw(VALUES)
    return training.check_settings(("lr", value, lo, hi), ("eps", data.draw(VALUES), lo, hi))


@call("padding.padding_effect")
def _(data: st.DataObject) -> Any:
    x = _vec(data, 2 * 3 * 2).reshape(2, 3, 2)
    return padding.padding_effect(x, np.array([[1, 1, 0], [1, 1, 1]]), eps=_eps(data))


@call("padding.identity_gaps")
def _(data: st.DataObject) -> Any:
    return padding.identity_gaps(_vec(data, 2 * 2 * 4).reshape(2, 2, 4), eps=_eps(data))


@call("blocks.display_grid")
def _(data: st.DataObject) -> Any:
    return blocks.display_grid(_vec(data, 2 * 3 * 4).reshape(2, 3, 4), max_rows=2, max_cols=2)


@call("bert.sentence_embedding")
def _(data: st.DataObject) -> Any:
    return bert.sentence_embedding(_vec(data, 2 * 3 * 2).reshape(2, 3, 2), np.array([[1, 1, 0], [1, 0, 0]]))


@call("readouts.cosine")
def _(data: st.DataObject) -> Any:
    return readouts.cosine(_vec(data, 3), _vec(data, 3))


@call("readouts.top_features")
def _(data: st.DataObject) -> Any:
    return readouts.top_features(_vec(data, 5), 3)


@call("running.shifted")
def _(data: st.DataObject) -> Any:
    return running.shifted(
        running.make_population(3), shift=data.draw(VALUES), scale=data.draw(st.floats(1e-300, 1.7e308))
    )


def _running(f: Callable[..., Any]) -> Callable[[st.DataObject], Any]:
    """``f(batch, running_mean, running_var, framework_name=…, momentum=…)`` for C ≤ 3 channels."""

    def run(data: st.DataObject) -> Any:
        c = _d(data, 1, 3)
        return f(
            _mat(data, _d(data), c),
            _vec(data, c),
            np.abs(_vec(data, c)),
            framework_name=data.draw(st.sampled_from(list(bn_frameworks.FRAMEWORKS))),
            momentum=data.draw(st.floats(0, 1)),
        )

    return run


for _name in ("running_update", "running_updates"):
    CALLS[f"bn_frameworks.{_name}"] = _running(getattr(bn_frameworks, _name))


@call("bn_frameworks.functional_batch_norm")
def _(data: st.DataObject) -> Any:
    c = _d(data, 1, 3)
    return bn_frameworks.functional_batch_norm(
        _mat(data, _d(data), c),
        _vec(data, c),
        np.abs(_vec(data, c)),
        training=data.draw(st.booleans()),
        momentum=data.draw(st.floats(0, 1)),
        eps=_eps(data),
    )


@call("recent_norms.dyt")
def _(data: st.DataObject) -> Any:
    d = _d(data)
    return recent_norms.dyt(_mat(data, 2, d), data.draw(VALUES), _vec(data, d), _vec(data, d))


@call("recent_norms.dyt_sse")
def _(data: st.DataObject) -> Any:
    d = _d(data)
    return recent_norms.dyt_sse(_mat(data, 2, d), _mat(data, 2, d), data.draw(VALUES))


@call("recent_norms.fit_dyt")
def _(data: st.DataObject) -> Any:
    d = _d(data)
    alpha = data.draw(st.one_of(st.none(), VALUES))
    return recent_norms.fit_dyt(
        _mat(data, 3, d), _mat(data, 3, d), alpha, per_feature=data.draw(st.booleans())
    )


@call("recent_norms.fit_tanh_and_line")
def _(data: st.DataObject) -> Any:
    return recent_norms.fit_tanh_and_line(_mat(data, 3, _d(data)), eps=_eps(data))


@call("recent_norms.attention_logits")
def _(data: st.DataObject) -> Any:
    d, d_h = _d(data), _d(data)
    return recent_norms.attention_logits(
        _mat(data, 3, d),
        _mat(data, d, d_h),
        _mat(data, d, d_h),
        _vec(data, d_h),
        _vec(data, d_h),
        scale=data.draw(st.floats(1e-300, 1.7e308)),
        qk_norm=data.draw(st.booleans()),
        eps=_eps(data),
    )


@call("recent_norms.fold_gamma")
def _(data: st.DataObject) -> Any:
    m, d = _d(data), _d(data)
    return recent_norms.fold_gamma(_vec(data, d), _vec(data, d), _mat(data, m, d), _vec(data, m))


@call("recent_norms.fold_check")
def _(data: st.DataObject) -> Any:
    m, d = _d(data), _d(data)
    return recent_norms.fold_check(
        _mat(data, 2, d), _vec(data, d), _vec(data, d), _mat(data, m, d), _vec(data, m), eps=_eps(data)
    )


@call("transformer_stats.parameter_histograms")
def _(data: st.DataObject) -> Any:
    return transformer_stats.parameter_histograms(_vec(data, 6).reshape(2, 3), bins=4)


for _name in (
    "layer_norm_in_dtype",
    "precision.layer_norm_in_dtype",
    "precision_sweep",
    "precision.precision_sweep",
    "fused.fused_affine",
    "fused.stepwise_affine",
    "fused.compare_affine_forms",
    "float32_affine.to_float32",
    "float32_affine.checked_inputs",
    "float32_affine.round_to_float32",
    "float32_affine.two_sum",
    "float32_affine.fma32",
    "float32_affine.mul_add32",
    "float32_affine.shift32",
    "float32_affine.rstd_of",
    "torch_kernels.rowwise_moments",
    "torch_kernels.layer_norm_kernel",
):
    CALLS[_name] = lambda data: None  # SHOW_FAILURE: see below


# Other errors a function's docstring names for finite input (its "Raises" section).
DOCUMENTED = {
    "training.check_settings": "must be between",
    "readouts.cosine": "the cosine of a zero vector is undefined",
    "bert.sentence_embedding": "a pooled sentence vector is exactly zero",
}


def _non_finite(value: object, where: str = "result") -> str | None:
    if isinstance(value, np.ndarray):
        return where if value.dtype.kind == "f" and not np.isfinite(value).all() else None
    if isinstance(value, float):
        return None if math.isfinite(value) else where
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items: Any = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    elif isinstance(value, (tuple, list)):
        items = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return None
    for k, v in items:
        if (where, k) == ("result", "effective_eps") and np.all(v == math.inf):
            continue  # InvarianceCheck: eps / c**2 is documented as inf for c = 0 (or beyond float64)
        if (where, k) == ("result", "ceiling"):
            continue  # JacobianNormCurve: 1 / sqrt(eps), documented as inf at eps = 0
        if (where, k) == ("result", "rounding"):
            continue  # InvarianceCurve: documented as NaN where c * sigma is 0 (no pattern to keep)
        bad = _non_finite(v, f"{where}.{k}")
        if bad:
            return bad
    return None


def _public_functions() -> set[str]:
    """``layernorm.__all__``'s functions and every lab module's, so a new lab module is covered too."""
    names = {n for n in ln.__all__ if inspect.isfunction(getattr(ln, n))}
    for info in pkgutil.iter_modules(labs.__path__):
        mod = importlib.import_module(f"{labs.__name__}.{info.name}")
        names |= {
            f"{info.name}.{n}"
            for n, f in vars(mod).items()
            if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == mod.__name__
        }
    return names


# Lab functions that take no floats a caller chooses freely (sizes, seeds, names, recordings,
# a weights file or a simulation's configuration): nothing to push to float64's edge.
LAB_NOT_NUMERIC = {
    # the same functions as ln.invariance_check, ln.invariance_curve, ... (called above)
    "geometry.invariance_check",
    "geometry.invariance_curve",
    "geometry.x_hat_norm_squared",
    "geometry.normalized_cloud",
    # float32 activations inside the recorded model: bounded by the model, not the caller
    "bert.gelu",
    "bert.forward",
    "readouts.site_label",
    "readouts.residual_size",
    "readouts.token_statistics",
    "readouts.compare",
    "readouts.recorded_result",
    "lenses.check_groups",
    "lenses.random_batch",
    "lenses.lens_group",
    "lenses.lens_mask",
    "lens_counts.stat_counts",
    "precision.numpy_dtype",
    "precision.offset_grid",
    "quiz.make_quiz",
    "running.make_population",
    "running.draw_batch",
    "running.initial_state",
    "running.train_step",
    "bn_frameworks.framework",  # a name, no numbers
    "batch_effects.batch_mates",
    "batch_effects.redraw_spread",
    "batch_effects.shift_test",
    "transformer_stats.site_stats",
    "recent_norms.placement_stack",  # a placement's name and a simulation's size
    "recent_norms.site_readers",  # the recorded model's weights: bounded by the model
    "recent_norms.head_projections",
    "recent_norms.fold_site",
    "bert.folded_cosines",
    "recent_norms.fit_sites",  # the recording's activations
    "transformer_stats.dimension_profile",
    "depth.simulate_depth",
    "depth.sig",  # a number's text, as the simulation's verdicts write it: no arithmetic
    "depth.layer_histograms",
    "training.make_task",
    "training.run_sweep",
    "float32_affine.first_status",  # names and booleans: which check failed first
    "stepping.train_stepped",
    "stepping.output_drift",  # reads a run the simulation made
    # a quiz question's text: it formats numbers the question drew itself
    "quiz_kit.g",
    "quiz_kit.full",
    "quiz_kit.vec_exact",
    "quiz_kit.vec",
    "quiz_kit.ask",
    "quiz_kit.link",
    "quiz_kit.typed",
    "quiz_kit.not_constant",
}


def test_every_public_function_is_called() -> None:
    missing = _public_functions() - set(CALLS) - NOT_NUMERIC - LAB_NOT_NUMERIC
    assert not missing, f"no overflow property for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(set(CALLS) - set(SHOW_FAILURE)))
@SETTINGS
@given(data=st.data())
def test_finite_input_gives_finite_results_or_a_clear_error(name: str, data: st.DataObject) -> None:
    try:
        result = CALLS[name](data)
    except ln.ResultRangeError as err:
        assert "float64" in str(err) and ("1.798e+308" in str(err) or "1.8e308" in str(err)), str(err)
        return
    except ln.ZeroVarianceError:
        return  # documented: a constant row with eps = 0 is 0/0
    except ValueError as err:
        if name in DOCUMENTED and DOCUMENTED[name] in str(err):
            return
        raise
    bad = _non_finite(result)
    assert bad is None, f"{name} returned a non-finite {bad}"


def test_show_failure_functions_say_so() -> None:
    for name in SHOW_FAILURE:
        f = (
            getattr(ln, name)
            if "." not in name
            else getattr(globals()[name.split(".")[0]], name.split(".")[1])
        )
        doc = inspect.getdoc(f) or ""
        assert "NaN" in doc or "∞" in doc or "inf" in doc or "overflow" in doc.lower(), name


_F32 = float(np.finfo(np.float32).max)
_FUSED_OVERFLOWS = set(fused.STATUS_WORDS) - {"ok"}


def _check_affine_run(run: fused.AffineRun) -> None:
    """A run is finite, or its status names the float32 overflow that made it ∞ or NaN."""
    parts = (run.y, run.rstd, *((run.scale, run.shift) if run.form == "fused" else (run.x_hat,)))
    finite = all(np.all(np.isfinite(p)) for p in parts)
    assert (run.status == "ok") == finite, (run.status, run)
    assert run.status == "ok" or run.status in _FUSED_OVERFLOWS


@SETTINGS
@given(data=st.data())
def test_the_fused_affine_forms_overflow_only_with_a_named_status(data: st.DataObject) -> None:
    """fused_affine, stepwise_affine and compare_affine_forms anywhere in float64's range: inputs beyond
    float32 are refused with a ValueError that says so; in float32's range, every ∞ or NaN is a named
    overflow of one step (s, b, x − μ, x̂, y), never a silent one."""
    d = _d(data, 1)
    x, gamma, beta = _vec(data, d), _vec(data, d), _vec(data, d)
    eps, mu = _eps(data), data.draw(VALUES)
    stats = data.draw(st.sampled_from(["var", "rstd"]))
    spread = {stats: abs(data.draw(VALUES)) or 1.0}
    beyond = any(np.max(np.abs(a)) > _F32 for a in (x, gamma, beta)) or (
        stats == "rstd" and spread["rstd"] > _F32
    )
    try:
        runs = [
            f(x, mu, gamma=gamma, beta=beta, eps=eps, **spread)
            for f in (fused.fused_affine, fused.stepwise_affine)
        ]
        compared = fused.compare_affine_forms(x, gamma=gamma, beta=beta, eps=eps)
    except ln.ZeroVarianceError:
        return  # documented: var = 0 with eps = 0 (or a constant row at eps = 0)
    except ValueError as err:
        if "fit in float32" in str(err) or "positive number that fits in float32" in str(err):
            assert beyond or stats == "rstd", str(err)
            return
        raise
    assert not beyond
    for run in [*runs, *compared.runs.values()]:
        _check_affine_run(run)
    assert np.all(np.isfinite(compared.exact))


@SETTINGS
@given(data=st.data())
def test_float32_rounding_is_infinite_only_beyond_float32(data: st.DataObject) -> None:
    """to_float32 and checked_inputs anywhere in float64's range: an entry becomes ∞ (never NaN) only
    when it is beyond float32's range; checked_inputs refuses such x, γ and β with a ValueError that
    says so, and its rstd is ∞ only when 1/√(var + ε) is beyond float32 (the fused forms'
    "rstd_overflow")."""
    d = _d(data, 1)
    a = _vec(data, d)
    stored = float32_affine.to_float32(a)
    assert not np.any(np.isnan(stored))
    assert np.all(np.isfinite(stored[np.abs(a) <= _F32]))
    assert np.all(np.abs(a[~np.isfinite(stored)]) > _F32)
    x, gamma, beta = a, _vec(data, d), _vec(data, d)
    var, eps = abs(data.draw(VALUES)), _eps(data)
    try:
        x32, g32, b32, mu, rstd = float32_affine.checked_inputs(
            x, data.draw(VALUES), var=var, gamma=gamma, beta=beta, eps=eps
        )
    except ln.ZeroVarianceError:
        assert var + eps == 0
        return
    except ValueError as err:
        assert "fit in float32" in str(err), str(err)
        assert any(np.max(np.abs(p)) > _F32 for p in (x, gamma, beta))
        return
    assert all(np.all(np.isfinite(p)) for p in (x32, g32, b32)) and math.isfinite(mu)
    assert rstd >= 0 and (math.isfinite(rstd) or 1 / math.sqrt(var + eps) > _F32)


def test_batch_norm_train_unbiased_variance_overflow_is_named() -> None:
    # var = 1.01e308 fits; the unbiased var * 2 / 1 does not (it was inf with a RuntimeWarning).
    with pytest.raises(
        ln.ResultRangeError, match=r"batch_norm_train: new_running_var .*largest \|x\| = 2\.01e\+154"
    ):
        ln.batch_norm_train([[2.01e154], [0.0]], None, None, np.zeros(1), np.ones(1))


def _section(doc: str, heading: str) -> str:
    """The body of a numpydoc section: from below its underline to the next blank-line-then-heading."""
    body = doc.split(f"\n{heading}\n{'-' * len(heading)}\n", 1)[1]
    return re.split(r"\n\n\w[\w ]*\n-+\n", body, maxsplit=1)[0]


def test_finite_results_documents_the_error_it_raises() -> None:
    for f in (ln.layer_norm, ln.batch_norm_train, geometry.invariance_check):
        doc = inspect.getdoc(f) or ""
        raises = _section(doc, "Raises")
        assert "\nResultRangeError\n    A result does not fit in a float64" in raises, f.__name__
        assert doc.count("ResultRangeError") == 1, f.__name__
        assert "ValueError" in raises, f.__name__  # the function's own entries are kept, before it


def test_finite_results_makes_a_raises_section_where_there_is_none() -> None:
    @finite_results()
    def with_notes(x: float) -> float:
        """Twice x.

        Notes
        -----
        Doubles.
        """
        return 2 * x

    @finite_results()
    def summary_only(x: float) -> float:
        """Twice x."""
        return 2 * x

    doc = inspect.getdoc(with_notes) or ""
    assert doc.index("Raises\n------\nResultRangeError") < doc.index("Notes\n-----")
    assert "ResultRangeError" in _section(doc, "Raises") and "Doubles." in _section(doc, "Notes")
    assert (inspect.getdoc(summary_only) or "").startswith("Twice x.\n\nRaises\n------\nResultRangeError\n")
    with pytest.raises(ln.ResultRangeError):
        summary_only(1e308)
