"""PyTorch 2.13's CPU float32 kernels modelled in NumPy, bit for bit against its recorded outputs.

``tests/data/fused_torch_2_13.json`` holds what PyTorch returned (scripts/record_fused_torch.py made
it, in a scratch environment): LayerNorm rows near 1e8 and like the sidebar's, and BatchNorm on
constant channels in training and in eval mode, on this CPU's build (fused multiply-adds) and on the
default build (none). Every model is compared with every record at every bit.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.labs import fused as F
from layernorm.labs import torch_kernels as K
from layernorm.labs.float32_affine import fma32, round_to_float32, rstd_of, shift32
from scripts import record_fused_torch as R

DATA = json.loads((Path(__file__).parents[1] / "data" / "fused_torch_2_13.json").read_text())
RECORDS: list[dict[str, Any]] = DATA["records"]
LAYER_NORM = [r for r in RECORDS if r["kernel"] == "layer_norm"]
BATCH_NORM = [r for r in RECORDS if r["kernel"] in ("batch_norm", "batch_norm_eval")]


def _fma(record: dict[str, Any]) -> bool:
    return bool(record["capability"] != "DEFAULT")  # AVX2 and AVX-512 builds fuse; the default does not


def _row(record: dict[str, Any], key: str) -> Any:
    value = R.row(record, key)
    return value.tolist() if isinstance(value, np.ndarray) else value


def _values(items: list[float | str]) -> np.ndarray:
    return np.array([float(v) for v in items])  # "nan", "inf" -> NaN, ∞


def _same(got: np.ndarray, record: dict[str, Any]) -> bool:
    """Bit for bit: every float32 of the output, or the SHA-256 of its float32 bytes."""
    if "y" in record:
        want = _values(record["y"])
        signs = np.isnan(want) | (np.signbit(got) == np.signbit(want))  # a NaN's sign is the CPU's
        return bool(np.array_equal(got, want, equal_nan=True) and np.all(signs))
    digest = hashlib.sha256(np.asarray(got, dtype="<f4").tobytes()).hexdigest()
    return digest == record["y_sha256"] and np.array_equal(got[:4], _values(record["y_head"]), equal_nan=True)


def _id(r: dict[str, Any]) -> str:
    x = r.get("x") or R.pattern(*r["x_pattern"])
    return f"{r['capability']}-{r.get('module', '')}-d{len(x)}-{x[0]:g}-eps{r['eps']:g}"


@pytest.mark.parametrize("record", LAYER_NORM, ids=[_id(r) for r in LAYER_NORM])
def test_layer_norm_kernel_is_pytorchs_output_bit_for_bit(record: dict[str, Any]) -> None:
    run = K.layer_norm_kernel(
        _row(record, "x"), _row(record, "gamma"), _row(record, "beta"), eps=record["eps"], fma=_fma(record)
    )
    assert _same(run.y, record)
    for name in ("mean", "rstd"):
        got, want = getattr(run, "mu" if name == "mean" else name), float(record[name])
        assert got == want or (np.isnan(got) and np.isnan(want)), name


NEAR_1E8 = [r for r in LAYER_NORM if "x" in r and 5e7 < abs(float(np.mean(r["x"]))) < 2e9 and len(r["x"]) > 1]


@pytest.mark.parametrize("record", NEAR_1E8, ids=[_id(r) for r in NEAR_1E8])
def test_the_pages_float32_welford_column_is_pytorchs_layer_norm_near_1e8(record: dict[str, Any]) -> None:
    """The Precision page's "step by step · float32 Welford" column, on rows where float32's numbers
    are 8 to 64 apart: it rounded 1/√(σ² + ε) once from float64 and γ·x̂ + β twice, one float32 unit
    off PyTorch on rows such as [100000000, 100000008, 100000016, 100000024]."""
    c = F.compare_affine_forms(
        record["x"],
        gamma=_row(record, "gamma"),
        beta=_row(record, "beta"),
        eps=record["eps"],
        fma=_fma(record),
    )
    assert c.kernel_status == "ok"
    assert c.mu["kernel"] == float(record["mean"])
    assert c.runs["kernel", "step"].rstd == float(record["rstd"])
    assert _same(c.runs["kernel", "step"].y, record)


def test_the_row_around_100000008_was_one_float32_unit_off() -> None:
    """The issue's example, pinned in numbers: σ² = 80, and PyTorch's rstd is float32's 1/√(80 + ε),
    0.111803398, where rounding float64's once gives 0.111803390; every output moves by a float32 unit."""
    x = [100000000.0, 100000008.0, 100000016.0, 100000024.0]
    record = next(r for r in NEAR_1E8 if r["x"] == x and r["gamma"] == 1.0 and r["capability"] != "DEFAULT")
    assert record["rstd"] == 0.11180339753627777 and rstd_of(80.0, 1e-5, "float64") == 0.11180339008569717
    assert record["y"] == [-1.7888543605804443, -0.8944271802902222, 0.0, 0.8944271802902222]
    once = [-1.7888542413711548, -0.8944271206855774, 0.0, 0.8944271206855774]  # what the page showed
    assert [np.nextafter(np.float32(v), np.float32(-2)) for v in once[:2]] == record["y"][:2]
    run = F.compare_affine_forms(x).runs["kernel", "step"]
    assert run.rstd == 0.11180339753627777 and run.y.tolist() == record["y"]


@pytest.mark.parametrize(
    "record", BATCH_NORM, ids=[f"{r['kernel']}-{_id(r)}-{r['gamma']:g}" for r in BATCH_NORM]
)
def test_batch_norm_on_a_constant_channel_is_the_fused_form_bit_for_bit(record: dict[str, Any]) -> None:
    """Training mode: 1/√(σ² + ε) in float64 from the batch's σ² = 0; eval mode (running variance 0):
    in float32. Then b = β − μ·s and y = x·s + b, each one fused multiply-add (two roundings on the
    default build)."""
    x, y = record["x"], _values(record["y"])
    assert len(set(x)) == 1  # μ = x exactly (the float64 sums are exact here), σ² = 0
    eval_mode = record["kernel"] == "batch_norm_eval"
    how = "float32" if eval_mode else "float64"
    kw = {"gamma": record["gamma"], "beta": record["beta"], "eps": record["eps"], "fma": _fma(record)}
    mu = record["running_mean"] if eval_mode else record["mean"]
    var = record["running_var"] if eval_mode else 0.0
    run = F.fused_affine(x, mu, var=var, rstd_in=how, **kw)
    assert np.array_equal(run.y, y)
    if not eval_mode:
        assert run.rstd == record["rstd"] and mu == float(np.float32(x[0]))
    assert np.array_equal(F.compare_affine_forms(x, rstd_in=how, **kw).runs["exact", "fused"].y, y)


def test_eval_mode_computes_rstd_in_float32_and_turns_5e7_into_minus_279_84375() -> None:
    train = F.fused_affine(np.full(5, 5e7), 5e7, var=0.0)
    evaluated = F.fused_affine(np.full(5, 5e7), 5e7, var=0.0, rstd_in="float32")
    assert train.rstd == 316.2277526855469 and evaluated.rstd == 316.227783203125
    assert train.y.tolist() == [242.27734375] * 5 and evaluated.y.tolist() == [-279.84375] * 5
    assert evaluated.shift[0] == -15811389440.0  # 5e7 · 316.227783203125 = 15811389160.15625, 1024 apart


def test_without_fused_multiply_adds_a_constant_channel_gives_beta_0_exactly() -> None:
    """The default build rounds x·s before adding b = −(μ·s rounded): for a constant channel and β = 0
    they cancel exactly, so the 242.27734375 is a fused multiply-add's doing."""
    for v in F.CHANNEL_VALUES:
        for how in F.RSTD_IN:
            assert np.all(F.fused_affine(np.full(5, v), v, var=0.0, rstd_in=how, fma=False).y == 0.0)


def test_on_the_default_build_pytorch_returns_beta_0_for_every_channel_the_page_offers() -> None:
    """What the page says of PyTorch's build without fused multiply-adds, in both modes."""
    channels = [r for r in BATCH_NORM if r["capability"] == "DEFAULT" and r["beta"] == 0.0]
    assert {r["x"][0] for r in channels} == set(F.CHANNEL_VALUES)
    assert {r["kernel"] for r in channels} == {"batch_norm", "batch_norm_eval"}
    assert all(v == 0.0 for r in channels for v in r["y"])


def test_the_recordings_cover_every_page_example_on_each_build() -> None:
    for capability in ("AVX512", "AVX2", "DEFAULT"):
        for kernel in ("batch_norm", "batch_norm_eval"):
            channels = {
                r["x"][0]
                for r in BATCH_NORM
                if (r["kernel"], r["capability"], r["gamma"], r["beta"]) == (kernel, capability, 1.0, 0.0)
                and len(r["x"]) == 5
            }
            assert set(F.CHANNEL_VALUES) <= channels, (capability, kernel)
    assert R.CHANNEL_VALUES == F.CHANNEL_VALUES and R.D1_GAMMAS == F.D1_GAMMAS
    assert R.ROW_NEAR_2E8 == F.ROW_NEAR_2E8
    sizes = {len(R.pattern(*r["x_pattern"])) for r in LAYER_NORM if "x_pattern" in r}
    assert {4096, 2056, 136} <= sizes  # chunks of 16 vectors merged 2, 3 and 5 levels deep, and tails


@settings(max_examples=150, deadline=None)
@given(
    x=st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=7),
    offset=st.sampled_from([0.0, 1e4, 1e8, -3e9]),
)
def test_below_eight_entries_the_kernels_moments_are_float32_welford_one_entry_at_a_time(
    x: list[float], offset: float
) -> None:
    """d < 8 leaves no full vector of 8 lanes: the kernel runs the scalar Welford loop alone."""
    row = np.float32(np.array(x) + offset).astype(np.float64)
    welford = ln.layer_norm_in_dtype(row, dtype="float32", method="welford")
    assert K.rowwise_moments(row) == (float(welford.mu[0]), float(welford.var[0]))


def _exact_float32(value: Fraction) -> float:
    """The float32 nearest ``value``, ties to even, found by stepping over float32 numbers."""
    guess = np.float32(float(value))
    below, above = (
        (np.nextafter(guess, np.float32(-np.inf)), guess)
        if Fraction(float(guess)) > value
        else (guess, np.nextafter(guess, np.float32(np.inf)))
    )
    gap_below, gap_above = value - Fraction(float(below)), Fraction(float(above)) - value
    if gap_below != gap_above:
        return float(below if gap_below < gap_above else above)
    return float(below if int(below.view(np.int32)) % 2 == 0 else above)


FLOAT32S = st.floats(-(2.0**60), 2.0**60, width=32, allow_subnormal=True)


@settings(max_examples=400, deadline=None)
@given(a=FLOAT32S, b=FLOAT32S, c=FLOAT32S, near=st.booleans())
def test_fma32_rounds_the_exact_a_times_b_plus_c_once(a: float, b: float, c: float, near: bool) -> None:
    if near:  # c close to −a·b: the sum cancels, where one rounding and two differ most
        c = float(np.float32(-a * b))
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    assert float(fma32(a, b, c)) == _exact_float32(exact)


def test_fma32_breaks_a_float64_tie_the_way_the_exact_sum_lies() -> None:
    """(1 + 2⁻¹²)² + 2⁻⁸⁰ rounds in float64 to a point halfway between two float32 numbers: rounding that
    again picks the even one, below the exact sum; one rounding picks the one above."""
    a = 1 + 2.0**-12
    assert float(np.float32(a * a + 2.0**-80)) == 1 + 2.0**-11  # two roundings
    assert float(fma32(a, a, 2.0**-80)) == 1 + 2.0**-11 + 2.0**-23
    assert float(fma32(a, a, -(2.0**-80))) == 1 + 2.0**-11


@settings(max_examples=200, deadline=None)
@given(
    beta=FLOAT32S, mu=st.floats(-1e12, 1e12), scale=st.floats(2.0**-10, 2.0**20, width=32), fma=st.booleans()
)
def test_shift32_rounds_beta_minus_mu_times_s_once_for_any_float64_mu(
    beta: float, mu: float, scale: float, fma: bool
) -> None:
    product = Fraction(mu) * Fraction(scale)
    if not fma:
        product = Fraction(_exact_float32(product))
    assert float(shift32(beta, mu, scale, fma=fma)[()]) == _exact_float32(Fraction(beta) - product)


@pytest.mark.parametrize("fma", [True, False])
@pytest.mark.parametrize(
    ("mu", "want"),
    [
        (1 + 2.0**-24, -1.0),  # exactly halfway between float32's 1 and 1 + 2**-23: to even
        (1 + 2.0**-24 + 2.0**-52, -(1 + 2.0**-23)),  # a float64 unit above halfway: away from 1
        (1 + 2.0**-24 - 2.0**-52, -1.0),  # a float64 unit below
        (1e-120, 0.0),  # below float32's range: μ·s rounds to 0
    ],
)
def test_shift32_decides_a_float64_mu_near_a_float32_tie_exactly(mu: float, want: float, fma: bool) -> None:
    """b = 0 − μ·1: μ·s lies on or a float64 unit from a float32 tie, where a float64 sum cannot tell."""
    assert float(shift32(0.0, mu, 1.0, fma=fma)) == want


def test_round_to_float32_keeps_ties_to_even_and_overflows_past_the_largest() -> None:
    three_halves_of_smallest = 3 * 2.0**-150  # halfway between the two smallest subnormals
    assert round_to_float32(three_halves_of_smallest).tolist() == 2.0**-148
    assert round_to_float32(three_halves_of_smallest, -1e-60).tolist() == 2.0**-149
    top = 2.0**128 - 2.0**103  # halfway between float32's largest number and 2**128
    assert round_to_float32(top, -1.0).tolist() == F.FLOAT32_MAX and np.isinf(round_to_float32(top))


def test_rstd_in_float32_rounds_each_step() -> None:
    eps32 = float(np.float32(1e-5))
    root = float(np.float32(np.sqrt(eps32)))
    assert rstd_of(0.0, 1e-5, "float32") == float(np.float32(1 / root)) == 316.227783203125
    assert rstd_of(0.0, 1e-5, "float64") == float(np.float32(1 / np.sqrt(1e-5))) == 316.2277526855469
    with pytest.raises(ValueError, match="rstd_in must be one of"):
        rstd_of(0.0, 1e-5, "float16")


def test_the_kernel_shows_its_overflows_as_pytorch_does() -> None:
    """A sum of squares beyond float32: σ² = ∞, 1/√(σ² + ε) = 0, so y = β. A mean beyond 1.8e19: the
    merge of the lanes squares it, and σ² is NaN."""
    run = K.layer_norm_kernel([1e30, -1e30, 5.0], beta=0.5)
    assert run.var == np.inf and run.rstd == 0.0 and run.y.tolist() == [0.5, 0.5, 0.5]
    assert np.isnan(K.rowwise_moments([2e19, 2.000001e19, 2e19])[1])
    with pytest.raises(ValueError, match="within float32's range"):
        K.rowwise_moments([1e39, 1.0])
