"""Every case of ``tests/data/reference_cases.json`` against the core.

The JSON is a copy of the project's shared reference (its README describes the
fields). Each case's ``x`` is rounded to the case's ``dtype`` first, then fed to
the core; the expected values were computed at high precision from that rounded
input. Where a case records what a *wrong* recipe returns (``common_wrong_output``
or ``naive_*``) and :mod:`layernorm.variants` (or the core used the wrong way)
implements that recipe, the test checks the recipe reproduces the wrong numbers
and that the correct output is clearly different from them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from layernorm import (
    ZeroVarianceError,
    batch_norm_eval,
    batch_norm_train,
    layer_norm,
    mean,
    variance,
)
from layernorm.variants import layer_norm_std_plus_eps, layer_norm_unbiased, variance_one_pass

CASES_PATH = Path(__file__).parent / "data" / "reference_cases.json"
CASES: list[dict[str, Any]] = json.loads(CASES_PATH.read_text(encoding="utf-8"))
BY_ID = {c["id"]: c for c in CASES}
OPS = {"layer_norm", "batch_norm_train", "batch_norm_eval", "variance"}
DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def _rounded(case: dict[str, Any]) -> npt.NDArray[Any]:
    """``x`` rounded to the case's dtype (no case uses bfloat16, so ml_dtypes is not needed)."""
    return np.asarray(case["x"], dtype=np.float64).astype(DTYPES[case["dtype"]])


def _floats(values: Any) -> npt.NDArray[np.float64]:
    """Nested lists that may contain the string "nan" -> float64 array."""
    if isinstance(values, list):
        return np.array([_floats(v) for v in values], dtype=np.float64)
    return np.float64(float(values))  # type: ignore[return-value]


def _tol(case: dict[str, Any]) -> dict[str, float]:
    return {"atol": case["tolerance"]["atol"], "rtol": case["tolerance"]["rtol"]}


def _bn_running(case: dict[str, Any]) -> tuple[Any, Any]:
    rm = case.get("running_mean_in", case.get("running_mean"))
    rv = case.get("running_var_in", case.get("running_var"))
    return rm, rv


# --- the file itself ---------------------------------------------------------------------


def test_reference_file_is_the_expected_sample() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == 19
    assert len(set(ids)) == len(ids)
    assert {c["op"] for c in CASES} == OPS
    # Every dtype is one NumPy has natively: bfloat16 (ml_dtypes) is not needed.
    assert {c["dtype"] for c in CASES} <= set(DTYPES)
    for c in CASES:
        if c["expected"] is None:
            assert c.get("expected_error") or c.get("expected_behavior"), c["id"]
        else:
            assert c["tolerance"] is not None, c["id"]


# --- the expected values -----------------------------------------------------------------

VALUE_CASES = [c["id"] for c in CASES if c["expected"] is not None]
ERROR_CASES = [c["id"] for c in CASES if c["expected"] is None]


@pytest.mark.parametrize("case_id", VALUE_CASES)
def test_reference_case_value(case_id: str) -> None:
    case = BY_ID[case_id]
    x = _rounded(case)
    x_before = x.copy()
    expected = _floats(case["expected"])
    tol = _tol(case)
    op = case["op"]
    if op == "layer_norm":
        k = case["normalized_ndim"]
        y = layer_norm(x, case["gamma"], case["beta"], eps=case["eps"], axis=tuple(range(-k, 0)))
        assert y.shape == x.shape
        assert y.dtype == np.float64
        np.testing.assert_allclose(y, expected, **tol)
    elif op == "batch_norm_train":
        rm, rv = _bn_running(case)
        y, new_rm, new_rv = batch_norm_train(
            x, case["gamma"], case["beta"], rm, rv, momentum=case["momentum"], eps=case["eps"]
        )
        np.testing.assert_allclose(y, expected, **tol)
        np.testing.assert_allclose(new_rm, _floats(case["expected_running_mean"]), **tol)
        np.testing.assert_allclose(new_rv, _floats(case["expected_running_var"]), **tol)
        # With momentum 1 the running statistics become the batch statistics themselves.
        _, batch_mean, batch_var_unbiased = batch_norm_train(
            x, case["gamma"], case["beta"], rm, rv, momentum=1.0, eps=case["eps"]
        )
        per_channel = np.moveaxis(x.astype(np.float64), 1, 0).reshape(x.shape[1], -1)
        if "expected_batch_mean" in case:
            np.testing.assert_allclose(batch_mean, case["expected_batch_mean"], **tol)
            np.testing.assert_allclose(mean(per_channel), case["expected_batch_mean"], **tol)
        if "expected_batch_var_unbiased" in case:
            np.testing.assert_allclose(batch_var_unbiased, case["expected_batch_var_unbiased"], **tol)
            np.testing.assert_allclose(
                variance(per_channel, ddof=1), case["expected_batch_var_unbiased"], **tol
            )
        if "expected_batch_var_biased" in case:
            np.testing.assert_allclose(variance(per_channel), case["expected_batch_var_biased"], **tol)
    elif op == "batch_norm_eval":
        rm, rv = _bn_running(case)
        y = batch_norm_eval(x, case["gamma"], case["beta"], rm, rv, eps=case["eps"])
        np.testing.assert_allclose(y, expected, **tol)
    elif op == "variance":
        v = variance(x, ddof=case["correction"])
        assert v.shape == ()
        np.testing.assert_allclose(v, expected, **tol)
    else:  # pragma: no cover - guarded by test_reference_file_is_the_expected_sample
        pytest.fail(f"unknown op {op}")
    np.testing.assert_array_equal(x, x_before)  # the input is never mutated


@pytest.mark.parametrize("case_id", ERROR_CASES)
def test_reference_case_error(case_id: str) -> None:
    case = BY_ID[case_id]
    x = _rounded(case)
    if case["op"] == "layer_norm":
        # PyTorch returns NaN for 0/0 (expected_behavior); the core refuses instead of
        # returning NaN or finite garbage.
        assert "NaN" in case["expected_behavior"]
        k = case["normalized_ndim"]
        with pytest.raises(ZeroVarianceError, match="variance 0 and eps is 0"):
            layer_norm(x, case["gamma"], case["beta"], eps=case["eps"], axis=tuple(range(-k, 0)))
        with pytest.raises(ValueError):  # ZeroVarianceError is a ValueError
            layer_norm(x, case["gamma"], case["beta"], eps=case["eps"], axis=tuple(range(-k, 0)))
    elif case["op"] == "batch_norm_train":
        exc_name, _, message = case["expected_error"].partition(": ")
        assert exc_name == "ValueError"
        rm, rv = _bn_running(case)
        rm_arr = np.asarray(rm, dtype=np.float64)
        rv_arr = np.asarray(rv, dtype=np.float64)
        with pytest.raises(ValueError, match=message):
            batch_norm_train(
                x, case["gamma"], case["beta"], rm_arr, rv_arr, momentum=case["momentum"], eps=case["eps"]
            )
        # Running statistics are left as they were (the case's expected_running_*).
        np.testing.assert_array_equal(rm_arr, case["expected_running_mean"])
        np.testing.assert_array_equal(rv_arr, case["expected_running_var"])
    else:  # pragma: no cover
        pytest.fail(f"no error expectation for op {case['op']}")


# --- the "wrong" recipes the lesson demonstrates ------------------------------------------


def _one_pass_layer_norm(x: npt.NDArray[Any], eps: float) -> npt.NDArray[np.float64]:
    """The naive kernel: one-pass variance, mean and division all in ``x``'s own dtype."""
    dt = x.dtype
    d = x.shape[-1]
    var = variance_one_pass(x, dtype=dt).astype(dt)[..., None]
    mu = (np.sum(x, axis=-1, dtype=dt) / np.asarray(d, dtype=dt))[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (x - mu) / np.sqrt(var + np.asarray(eps, dtype=dt))
    return out.astype(np.float64)


def _recipe(case: dict[str, Any], key: str) -> npt.NDArray[np.float64] | None:
    """Compute the wrong recipe named ``key`` on the case's input, or None if no variant matches."""
    x = _rounded(case)
    eps = case["eps"]
    if key == "unbiased_variance_(n-1)":
        return layer_norm_unbiased(x, eps=eps)
    if key.startswith("(x-mean)/(std_unbiased+eps)"):
        return layer_norm_std_plus_eps(x, eps=eps)
    if key == "normalized_over_axis0_(batch)":
        # Statistics over the batch axis is BatchNorm in training mode (no affine).
        rm = np.zeros(x.shape[1])
        rv = np.ones(x.shape[1])
        return batch_norm_train(x, None, None, rm, rv, eps=eps)[0]
    if key.startswith("one_pass_E[x^2]-E[x]^2_in_"):
        assert key.endswith(case["dtype"])
        return _one_pass_layer_norm(x, eps)
    return None  # e.g. "two_pass_in_float32": no variant implements a same-dtype two-pass kernel


WRONG = [
    (c["id"], field, key)
    for c in CASES
    for field in ("common_wrong_output", "naive_same_dtype_outputs")
    for key in (c.get(field) or {})
]
WRONG_WITH_RECIPE = [w for w in WRONG if _recipe(BY_ID[w[0]], w[2]) is not None]


def test_every_kind_of_wrong_output_is_covered() -> None:
    covered = {key for _, _, key in WRONG_WITH_RECIPE}
    assert "unbiased_variance_(n-1)" in covered
    assert "normalized_over_axis0_(batch)" in covered
    assert any(k.startswith("(x-mean)/(std_unbiased") for k in covered)
    assert any(k.startswith("one_pass_E[x^2]") for k in covered)
    uncovered = {key for _, _, key in WRONG} - covered
    assert uncovered <= {"two_pass_in_float32", "two_pass_in_float16"}


@pytest.mark.parametrize(("case_id", "field", "key"), WRONG_WITH_RECIPE)
def test_wrong_recipe_reproduces_recorded_output(case_id: str, field: str, key: str) -> None:
    case = BY_ID[case_id]
    wrong = _floats(case[field][key])
    got = _recipe(case, key)
    assert got is not None
    tol = _tol(case)
    if case["dtype"] != "float64":  # the recipe is a same-dtype kernel: compare at that precision
        tol = {"atol": 0.0, "rtol": float(np.finfo(DTYPES[case["dtype"]]).eps)}
    np.testing.assert_allclose(got, wrong, equal_nan=True, **tol)
    # ... and the core's answer is clearly not the wrong one: it lies at least 100 times closer
    # to the exact value than the wrong recipe does (LN15's one-pass error is only 5e-7, inside
    # the case's own 1e-6 tolerance, so the case tolerance cannot be the yardstick here).
    correct = _floats(case["expected"])
    assert np.all(np.isfinite(correct))
    k = case["normalized_ndim"]
    core = layer_norm(_rounded(case), case["gamma"], case["beta"], eps=case["eps"], axis=tuple(range(-k, 0)))
    core_err = np.abs(core - correct)
    wrong_err = np.abs(wrong - correct)  # NaN where the wrong output is NaN
    assert np.any(np.isnan(wrong_err) | (wrong_err > 100 * core_err + 1e-300))


@pytest.mark.parametrize("case_id", [c["id"] for c in CASES if "naive_one_pass_same_dtype" in c])
def test_naive_one_pass_variance(case_id: str) -> None:
    case = BY_ID[case_id]
    x = _rounded(case)
    naive = variance_one_pass(x, dtype=x.dtype)
    assert float(naive) == case["naive_one_pass_same_dtype"]  # the kernel is deterministic
    if case["naive_one_pass_same_dtype"] != case["expected"]:
        assert not math.isclose(float(naive), case["expected"], rel_tol=0.01)
        assert float(variance(x)) == pytest.approx(case["expected"], rel=1e-12)


def test_variance_one_pass_documented_negative() -> None:
    """The docstring's example: [40000..40003] in float32 gives -128 instead of 1.25."""
    assert float(variance_one_pass([40000, 40001, 40002, 40003])) == -128.0
    assert float(variance([40000, 40001, 40002, 40003])) == 1.25
