"""The fused affine form y = x·s + b in float32, against the step-by-step form and PyTorch 2.13's outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.labs import fused as F

DATA = Path(__file__).parents[1] / "data" / "fused_torch_2_13.json"
ALL_RECORDS = json.loads(DATA.read_text())["records"]
# This CPU's build (fused multiply-adds), rows given by their numbers, usable statistics (a finite,
# positive rstd): the page's cases. tests/labs/test_fused_kernels.py compares every record, the default
# build's, the long rows' and the overflows' too.
RECORDS = [
    r
    for r in ALL_RECORDS
    if r["capability"] != "DEFAULT"
    and "x" in r
    and isinstance(r.get("rstd", 1.0), float)
    and r.get("rstd", 1) > 0
]
ROW = list(F.ROW_NEAR_2E8)
# float32 numbers near 1e8 (8 apart): float32 Welford gets σ² = 896 instead of 1024, while b = −μ·s
# with s = 1/32 is exact, so only the statistics go wrong.
STATS_ROW = [100000032.0, 100000040.0, 99999968.0, 100000016.0, 99999960.0, 100000032.0]


def test_a_batchnorm_channel_of_5e7_gives_242_27734375_instead_of_0() -> None:
    run = F.fused_affine(np.full(5, 5e7), 5e7, var=0.0, gamma=1.0, beta=0.0, eps=1e-5)
    assert run.status == "ok"
    assert run.rstd == 316.2277526855469 and np.all(run.scale == 316.2277526855469)
    assert np.all(run.shift_exact == -15811387634.277344)  # β − μ·s in float64
    assert np.all(run.shift == -15811387392.0)  # float32 numbers there are 1024 apart
    assert np.all(run.y == 242.27734375)
    step = F.stepwise_affine(np.full(5, 5e7), 5e7, var=0.0)
    assert np.all(step.y == 0.0)  # x − μ = 0, so y = β


def test_a_batchnorm_channel_of_1e6_gives_8_685546875() -> None:
    assert np.all(F.fused_affine(np.full(4, 1e6), 1e6, var=0.0).y == 8.685546875)


def test_one_feature_with_gamma_1e12_loses_beta() -> None:
    """d = 1: x − μ = 0, so the answer is β = −1 for any x; the fused form's b absorbs the −1."""
    run = F.fused_affine([1.0], 1.0, var=0.0, gamma=1e12, beta=-1.0, eps=0.1)
    assert run.gamma[0] == 999999995904.0  # 1e12 in float32
    assert run.scale[0] == 3162277675008.0
    assert run.shift_exact[0] == -3162277675009.0
    assert run.shift[0] == -3162277675008.0  # float32 numbers there are 262144 apart: the −1 is gone
    assert run.y[0] == 0.0
    assert F.stepwise_affine([1.0], 1.0, var=0.0, gamma=1e12, beta=-1.0, eps=0.1).y[0] == -1.0
    assert F.fused_affine([123.456], float(np.float32(123.456)), var=0.0, gamma=1e12, beta=-1.0, eps=0.1).y[
        0
    ] == (-2187912.0)


def test_the_row_near_2e8_is_wrong_through_its_statistics_and_through_the_folding() -> None:
    welford = ln.layer_norm_in_dtype(ROW, dtype="float32", method="welford")
    assert float(welford.mu[0]) == 200000032.0 and float(welford.var[0]) == 256.0
    for f in (F.fused_affine, F.stepwise_affine):  # PyTorch's statistics: both forms give its answer
        assert f(ROW, 200000032.0, var=256.0).y.tolist() == [-1.0, -2.0, 0.0, 1.0]
    exact_stats = F.fused_affine(ROW, 200000024.0, var=320.0)
    assert exact_stats.shift[0] == -11180341.0
    assert exact_stats.y.tolist() == [
        -0.35194504261016846,
        -1.2463722229003906,
        0.5424821376800537,
        1.4369093179702759,
    ]
    c = F.compare_affine_forms(ROW)
    assert c.mu == {"exact": 200000024.0, "kernel": 200000032.0}
    assert c.var == {"exact": 320.0, "kernel": 256.0}
    assert c.runs["kernel", "step"].y.tolist() == [-1.0, -2.0, 0.0, 1.0]
    assert c.runs["exact", "fused"].y.tolist() == exact_stats.y.tolist()
    np.testing.assert_allclose(c.exact, [-0.4472136, -1.3416408, 0.4472136, 1.3416408], atol=1e-7)
    assert c.within("exact", "step") and not c.within("exact", "fused") and not c.within("kernel", "step")
    assert c.verdict == "both"


@pytest.mark.parametrize(
    ("x", "gamma", "beta", "eps", "verdict"),
    [
        (np.full(5, 5e7), 1.0, 0.0, 1e-5, "affine"),
        ([1.0], 1e12, -1.0, 0.1, "affine"),
        (ROW, 1.0, 0.0, 1e-5, "both"),
        (STATS_ROW, 1.0, 0.0, 1e-5, "statistics"),
        ([1.0, 2.0, 3.0, 4.0], 1.0, 0.0, 1e-5, "none"),
        ([1.0, 2.0], 3e38, 0.0, 1e-5, "affine"),  # s = 3e38/0.5 overflows float32; γ·x̂ = ±3e38 does not
        ([1.0, 2.0], 3.4e38, 3.4e38, 1e-5, "float32"),  # y = γ + β is beyond float32 in either form
    ],
)
def test_the_verdict_names_the_part_that_goes_wrong(
    x: list[float], gamma: float, beta: float, eps: float, verdict: str
) -> None:
    assert F.compare_affine_forms(x, gamma=gamma, beta=beta, eps=eps).verdict == verdict


def test_the_statistics_row_goes_wrong_in_its_variance_alone() -> None:
    c = F.compare_affine_forms(STATS_ROW)
    assert c.mu == {"exact": 100000008.0, "kernel": 100000008.0}
    assert c.var == {"exact": 1024.0, "kernel": 896.0}
    assert c.runs["exact", "fused"].shift[0] == c.runs["exact", "fused"].shift_exact[0]  # b is exact


def test_an_overflowing_scale_is_a_status_not_an_error() -> None:
    run = F.fused_affine([1.0, 2.0], 1.5, var=0.25, gamma=3e38)
    assert run.status == "scale_overflow" and np.isinf(run.scale).all()
    assert F.stepwise_affine([1.0, 2.0], 1.5, var=0.25, gamma=3e38).status == "ok"


@pytest.mark.parametrize(
    "record", RECORDS, ids=[f"{r['kernel']}-{len(r['x'])}-{r['x'][0]:g}-{r['gamma']}"[:60] for r in RECORDS]
)
def test_every_recorded_pytorch_output_is_a_column_of_the_comparison(record: dict[str, object]) -> None:
    """BatchNorm (which folds) is the fused form with exact statistics, 1/√(σ² + ε) computed in float64
    in training mode and in float32 in eval mode; LayerNorm (which does not fold) is the step form with
    PyTorch's float32 Welford statistics (exact ones for a constant row, where they agree)."""
    x, y = np.array(record["x"]), np.array(record["y"])
    eval_mode = {"rstd_in": "float32"} if record["kernel"] == "batch_norm_eval" else {}
    c = F.compare_affine_forms(
        x,
        gamma=record["gamma"],
        beta=record["beta"],
        eps=record["eps"],
        **eval_mode,  # type: ignore[arg-type]
    )
    layer_norm = record["kernel"] == "layer_norm"
    stats = "kernel" if layer_norm and not np.all(x == x[0]) else "exact"
    assert c.runs[stats, "step" if layer_norm else "fused"].y.tolist() == y.tolist()


def test_every_example_the_page_offers_was_measured() -> None:
    for kernel in ("batch_norm", "batch_norm_eval"):
        channel = {
            r["x"][0]
            for r in RECORDS
            if r["kernel"] == kernel and r["gamma"] == 1.0 and r["eps"] == 1e-5 and len(r["x"]) == 5
        }
        assert set(F.CHANNEL_VALUES) <= channel, kernel
    for kernel in ("batch_norm", "batch_norm_eval", "layer_norm"):
        d1 = {(r["x"][0], r["gamma"]) for r in RECORDS if r["kernel"] == kernel and r["eps"] == 0.1}
        assert {(x, g) for x in F.CHANNEL_VALUES for g in F.D1_GAMMAS} <= d1, kernel
    assert all(r["y"] == [-1.0] for r in RECORDS if r["kernel"] == "layer_norm" and r["eps"] == 0.1)
    assert any(r["x"] == list(F.ROW_NEAR_2E8) for r in RECORDS if r["kernel"] == "layer_norm")


@settings(max_examples=80, deadline=None)
@given(
    c=st.floats(-1e30, 1e30),
    beta=st.floats(-1e6, 1e6),
    gamma=st.floats(-1e6, 1e6),
    d=st.integers(1, 6),
)
def test_a_constant_row_gives_beta_step_by_step_and_beta_plus_what_b_lost_fused(
    c: float, beta: float, gamma: float, d: int
) -> None:
    """x − μ = 0: the step form returns β exactly; the fused form x·s + b, rounded once."""
    mu = float(np.float32(c))
    step = F.stepwise_affine(np.full(d, c), mu, var=0.0, gamma=gamma, beta=beta)
    assert np.all(step.y == step.beta)
    fused = F.fused_affine(np.full(d, c), mu, var=0.0, gamma=gamma, beta=beta)
    if fused.status == "ok":
        expected = np.float32(fused.x * fused.scale + fused.shift).astype(np.float64)
        assert np.all(fused.y == expected)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x": [1.0], "mu": 1.0}, "exactly one of var and rstd"),
        ({"x": [1.0], "mu": 1.0, "var": 1.0, "rstd": 1.0}, "exactly one of var and rstd"),
        ({"x": [1e39], "mu": 1.0, "var": 1.0}, "fit in float32"),
        ({"x": [1.0], "mu": 1.0, "var": 1.0, "gamma": [1.0, 2.0]}, "one number or 1 numbers"),
        ({"x": [1.0], "mu": 1.0, "var": 1.0, "beta": -4e38}, "fit in float32"),
        ({"x": [1.0], "mu": float("inf"), "var": 1.0}, "mu must be a finite number"),
        ({"x": [1.0], "mu": 1.0, "var": -1.0}, "var must be a finite number >= 0"),
        ({"x": [1.0], "mu": 1.0, "rstd": 0.0}, "rstd must be a positive number"),
        ({"x": [], "mu": 1.0, "var": 1.0}, "non-empty row"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    for f in (F.fused_affine, F.stepwise_affine):
        with pytest.raises(ValueError, match=message):
            f(**kwargs)  # type: ignore[arg-type]


def test_a_constant_row_at_eps_0_is_0_over_0() -> None:
    with pytest.raises(ln.ZeroVarianceError):
        F.fused_affine([2.0, 2.0], 2.0, var=0.0, eps=0.0)
    with pytest.raises(ln.ZeroVarianceError):
        F.compare_affine_forms([2.0, 2.0], eps=0.0)
