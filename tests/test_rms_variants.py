"""RMSNorm's look-alikes (layernorm.rms_variants): Keras' rms_scaling, the dtype's own ε, a √ too many.

The expected values were checked against PyTorch 2.13 (CPU) in a scratch script: ``F.rms_norm`` with
each ε, ``x * torch.rsqrt(x.var(unbiased=False) + 1e-3)`` for Keras' formula, and ``nn.RMSNorm(eps=None)``
on bfloat16 ``[0.05, −0.05, 0.05, −0.05]`` giving ``[1, −1, 1, −1]``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.rms_variants import FORMULAS, MACHINE_EPS, VARIANTS

TEN = np.arange(10.0)  # 0, 1, …, 9: mean square 28.5, variance 8.25
ALTERNATING = [0.05, -0.05, 0.05, -0.05]  # mean square 0.0025
F32_EPS = 2.0**-23


def _rows(x: object, dtype: str) -> dict[str, ln.RmsVariantRow]:
    return {r.variant: r for r in ln.rms_variants(x, dtype=dtype)}


def test_keras_rms_scaling_divides_by_the_variance_not_the_mean_square() -> None:
    keras = ln.rms_norm_variant(TEN, "keras_rms_scaling", eps=1e-3)
    np.testing.assert_allclose(keras, TEN / math.sqrt(8.25 + 0.001), rtol=1e-15)
    assert round(float(keras[1]), 7) == 0.3481342
    for eps in (F32_EPS, 1e-6):  # PyTorch's default for float32, and the 1e-6 of LLaMA/T5
        rms = ln.rms_norm_variant(TEN, "rmsnorm", eps=eps)
        assert round(float(rms[1]), 7) == 0.1873172
        np.testing.assert_allclose(rms, ln.rms_norm(TEN, eps=eps), rtol=1e-15)
    row = _rows(TEN, "float32")["keras_rms_scaling"]
    assert (row.eps, row.under_root) == (1e-3, 8.25)
    assert round(row.scale, 7) == 0.3481342 and round(_rows(TEN, "float32")["rmsnorm"].scale, 7) == 0.1873172
    assert row.ratio == pytest.approx(math.sqrt((28.5 + F32_EPS) / (8.25 + 1e-3)), rel=1e-15)


def test_keras_rms_scaling_is_rmsnorm_on_a_mean_zero_vector() -> None:
    x = np.array([1.5, -2.0, 0.25, 0.25])  # sums to 0 exactly
    for eps in (0.0, 1e-6, 1e-3):
        np.testing.assert_allclose(
            ln.rms_norm_variant(x, "keras_rms_scaling", eps=eps), ln.rms_norm(x, eps=eps), rtol=1e-15
        )


def test_bfloat16_torch_default_eps_against_the_dtypes_own() -> None:
    assert ln.default_rms_eps("bfloat16") == F32_EPS and ln.default_rms_eps("float16") == F32_EPS
    assert ln.default_rms_eps("float32") == F32_EPS and ln.default_rms_eps("float64") == 2.0**-52
    assert ln.default_rms_eps("bfloat16", rule="input") == 0.0078125
    assert ln.default_rms_eps("float16", rule="input") == 2.0**-10
    rows = _rows(ALTERNATING, "bfloat16")
    torch_like, own = rows["rmsnorm"], rows["dtype_eps"]
    assert (torch_like.eps, own.eps) == (F32_EPS, 2.0**-7)
    assert round(float(torch_like.output[0]), 8) == 0.99997616  # 0.05 / √(0.0025 + 2⁻²³)
    assert round(float(own.output[0]), 8) == 0.49236596  # 0.05 / √(0.0025 + 2⁻⁷)
    np.testing.assert_allclose(own.output, np.array(ALTERNATING) / math.sqrt(0.0025 + 2.0**-7), rtol=1e-14)
    assert own.ratio == pytest.approx(math.sqrt((0.0025 + F32_EPS) / (0.0025 + 2.0**-7)), rel=1e-14)
    # float16's own ε, 2⁻¹⁰, shrinks the output too; float32 and float64 give RMSNorm itself
    assert round(float(_rows(ALTERNATING, "float16")["dtype_eps"].output[0]), 8) == 0.84799830
    for dtype in ("float32", "float64"):
        same = _rows(ALTERNATING, dtype)
        assert same["dtype_eps"].ratio == 1.0 and same["dtype_eps"].max_abs_difference == 0.0


def test_float64_eps_gives_one_to_twelve_digits() -> None:
    rows = _rows(ALTERNATING, "float64")
    exact = 0.05 / math.sqrt(0.0025 + 2.0**-52)  # 1 − 4.44e−14
    for name in ("rmsnorm", "dtype_eps"):
        assert abs(float(rows[name].output[0]) - exact) < 1e-12
        assert abs(float(rows[name].output[0]) - 1.0) < 1e-12


def test_one_square_root_too_many() -> None:
    for eps in (0.0, 1e-8, F32_EPS):
        np.testing.assert_allclose(
            ln.rms_norm_variant([3.0, 4.0], "sqrt_of_rms", eps=eps), [1.59549, 2.12732], atol=5e-6
        )
    np.testing.assert_allclose(
        ln.rms_norm_variant([3.0, 4.0], "sqrt_of_rms", eps=0.0),
        np.array([3.0, 4.0]) / math.sqrt(math.sqrt(12.5)),
    )
    np.testing.assert_allclose(ln.rms_norm([3.0, 4.0], eps=1e-8), [0.84852814, 1.13137085], atol=5e-9)
    row = _rows([3.0, 4.0], "float32")["sqrt_of_rms"]
    assert row.under_root == pytest.approx(math.sqrt(12.5), rel=1e-15) and row.eps == F32_EPS
    np.testing.assert_allclose(row.output, [1.59549, 2.12732], atol=5e-6)


@settings(max_examples=40, deadline=None)
@given(
    x=st.lists(st.floats(-1e6, 1e6, allow_subnormal=False), min_size=1, max_size=12),
    dtype=st.sampled_from(list(MACHINE_EPS)),
)
def test_every_row_is_rmsnorm_times_its_ratio(x: list[float], dtype: str) -> None:
    rows = ln.rms_variants(x, dtype=dtype)
    assert [r.variant for r in rows] == list(VARIANTS)
    ref = rows[0]
    np.testing.assert_allclose(ref.output, ln.rms_norm(x, eps=ln.default_rms_eps(dtype)), rtol=1e-14)
    assert ref.ratio == 1.0 and ref.max_abs_difference == 0.0
    for r in rows:
        assert r.divisor == pytest.approx(math.sqrt(r.under_root + r.eps), rel=1e-14)
        assert r.scale * r.divisor == pytest.approx(1.0, rel=1e-15)
        np.testing.assert_allclose(r.output, np.array(x) * r.scale, rtol=1e-14, atol=1e-300)
        np.testing.assert_allclose(r.output, ref.output * r.ratio, rtol=1e-13, atol=1e-300)
        assert r.max_abs_difference == pytest.approx(float(np.max(np.abs(r.output - ref.output))), abs=0)
    formulas = {"rmsnorm": "rmsnorm", "keras_rms_scaling": "keras_rms_scaling", "sqrt_of_rms": "sqrt_of_rms"}
    for r in rows:
        f = formulas.get(r.variant, "rmsnorm")
        np.testing.assert_allclose(ln.rms_norm_variant(x, f, eps=r.eps), r.output, rtol=1e-14, atol=1e-300)


def test_rms_norm_default_eps_is_pytorch_s_not_the_dtypes_own() -> None:
    x16 = np.array(ALTERNATING, dtype=np.float16)
    np.testing.assert_allclose(ln.rms_norm(x16), ln.rms_norm(x16, eps=F32_EPS), rtol=0)
    assert float(ln.rms_norm(x16)[0]) > 0.9999  # not 0.85 (float16's own ε)
    np.testing.assert_allclose(ln.rms_norm(np.float64(ALTERNATING)), ln.rms_norm(ALTERNATING, eps=2.0**-52))


def test_batches_and_bad_input() -> None:
    x = np.stack([TEN, TEN[::-1]])
    for f in FORMULAS:
        y = ln.rms_norm_variant(x, f, eps=1e-3)
        np.testing.assert_allclose(y[1], ln.rms_norm_variant(TEN[::-1], f, eps=1e-3), rtol=1e-15)
    with pytest.raises(ValueError, match="variant must be one of"):
        ln.rms_norm_variant(TEN, "dtype_eps", eps=1e-3)
    with pytest.raises(ValueError, match="eps must be"):
        ln.rms_norm_variant(TEN, eps=-1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        ln.rms_norm_variant([1.0, math.nan], eps=1e-3)
    with pytest.raises(ValueError, match="dtype must be one of"):
        ln.rms_variants(TEN, dtype="int8")
    with pytest.raises(ValueError, match="rule must be"):
        ln.default_rms_eps("float32", rule="torch")
    with pytest.raises(ValueError, match="one non-empty vector"):
        ln.rms_variants(np.ones((2, 2)))
    with pytest.raises(ln.ZeroVarianceError):
        ln.rms_norm_variant([3.0, 3.0], "keras_rms_scaling", eps=0.0)  # constant: variance 0
    with pytest.raises(ln.ZeroVarianceError):
        ln.rms_variants([3.0, 3.0], keras_eps=0.0)
    # a constant vector is what Keras' formula blows up: ε alone is left under the root
    assert ln.rms_variants([3.0, 3.0])[1].output[0] == pytest.approx(3 / math.sqrt(1e-3), rel=1e-15)
