"""Dragging the vector's bars (ui.live.vector): the grid of values a bar takes, and on every step page
each frame of a dragged feature is what the page shows once the moved vector is typed in."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from live_support import _component_data
from streamlit.testing.v1 import AppTest
from test_pages_steps import DEFAULT_X, FULL, MEAN, SS, STEP_PAGES, expected_metrics, ok

import layernorm as ln
from ui.live import vector
from ui.live.vector import Grid, grid_for, moved


def test_the_grid_is_round_numbers_over_the_bars_zero_and_room_around_them() -> None:
    g = grid_for(np.array([1.0, 2.0, 3.0, 4.0]))
    assert g is not None
    assert g == Grid(k0=-20, step=0.2, count=61, decimals=1)  # −4 … 8: the span 4 of room each side
    assert g.span == (-4.0, 8.0)
    assert [g.value(k) for k in (0, 1, 21, 60)] == [-4.0, -3.8, 0.2, 8.0]  # round: not 0.20000000000000004
    one_decimal = [f"{g.value(k):.1f}".rstrip("0").rstrip(".") for k in range(g.count)]
    assert [ln.number_text(g.value(k)) for k in range(g.count)] == one_decimal


@pytest.mark.parametrize(
    "shown",
    [[1e8, 1e8 + 3], [-1e-8, 2e-8], [0.0, 0.0], [-5.0], [40.0, 1, 2, 3], [1e300, -1e300], [1e-280, 3e-280]],
)
def test_every_grid_holds_the_bars_and_zero_in_at_most_eighty_steps(shown: list[float]) -> None:
    x = np.array(shown)
    g = grid_for(x)
    assert g is not None
    lo, hi = g.span
    assert lo <= min(0.0, *x) and hi >= max(0.0, *x)
    assert vector.STEPS // 3 <= g.count <= vector.STEPS + 1  # the step is the next 1, 2 or 5 × 10ᵏ
    assert all(math.isfinite(g.value(k)) for k in range(g.count))


def test_bars_near_the_float64_limits_are_not_dragged() -> None:
    assert grid_for(np.array([1.7e308, -1.7e308])) is None
    assert grid_for(np.array([1.0]), axis=(-1e308, 1e308)) is None
    assert grid_for(np.array([5e-324, 0.0])) is None  # nor next to the smallest subnormal


def test_a_fixed_axis_is_what_the_grid_spans() -> None:
    g = grid_for(np.array([1.0, 2.0]), axis=(-12.3, 15.1))
    assert g is not None
    lo, hi = g.span
    assert lo <= -12.3 and hi >= 15.1 and hi - lo < 27.4 + 2 * g.step


def test_a_moved_feature_types_as_the_round_number_the_bar_shows() -> None:
    x = np.array([1.0, 2.0, 3.0])
    assert moved(x, 1, 2.4).tolist() == [1.0, 2.4, 3.0]
    assert moved(x, 1, 2.4, offset=0.3).tolist() == [1.0, 2.1, 3.0]  # not 2.0999999999999996
    assert x.tolist() == [1.0, 2.0, 3.0]  # a copy


# --- every frame of a dragged bar is the page at the typed vector ----------------------------------------


def bars_of(at: AppTest) -> dict[str, Any]:
    (data,) = _component_data(at, "bars")
    return data


def asked(at: AppTest, i: int) -> dict[str, Any]:
    """The frames of feature ``i`` (0-based), as the browser gets them when the student reaches for it."""
    data = bars_of(at)
    at.session_state["_live_bars_asked"] = {f"{data['chart']}_bars": [i]}
    ok(at.run())
    (payload,) = bars_of(at)["payloads"]
    assert payload["feature"] == i
    return payload


def frame_metrics(payload: dict[str, Any], k: int) -> list[tuple[str, str]]:
    return [(m["label"], m["value"]) for r in payload["frames"][k]["readouts"] for m in r["metrics"]]


def opened(page: str, **query: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    ok(at.run())
    return ok(at.switch_page(page).run())


@pytest.mark.parametrize("page", STEP_PAGES)
def test_each_frame_is_the_pages_numbers_for_the_moved_vector(page: str) -> None:
    at = opened(page)
    data = bars_of(at)
    payload = asked(at, 2)
    lo, hi = data["span"]
    step = (hi - lo) / (data["count"] - 1)
    for k in (0, data["count"] // 3, data["count"] - 1):
        x = DEFAULT_X.copy()
        x[2] = payload["values"][k]
        assert abs(x[2] - (lo + k * step)) < 1e-9 * max(1.0, abs(x[2]))
        assert payload["labels"][k] == f"x3 = {ln.number_text(float(x[2]))}"
        assert frame_metrics(payload, k) == expected_metrics(page, x), k


@pytest.mark.parametrize(
    ("page", "query"),
    [
        (MEAN, {"mean_shift": "0.3"}),  # the bars show x + c: the typed feature is the bar's value − c
        (SS, {"affine_mode": "Undo for this vector: γ = σ, β = μ"}),  # γ, β follow the new vector's σ, μ
        (SS, {"gamma": "2", "beta": "-0.5"}),
        (FULL, {"eps": "1e-01"}),
    ],
)
def test_the_released_page_is_the_last_frame(page: str, query: dict[str, str]) -> None:
    """What a release does (the moved vector typed in, the other settings kept) shows the frame's
    numbers at every digit."""
    typed = ", ".join(ln.number_text(v) for v in DEFAULT_X)
    at = opened(page, src="Type numbers", typed=typed, **query)
    payload = asked(at, 5)
    k = len(payload["values"]) // 4
    x = vector.moved(DEFAULT_X, 5, payload["values"][k], float(query.get("mean_shift", 0)))
    text = ", ".join(ln.number_text(float(v)) for v in x)
    assert payload["labels"][k] == f"x6 = {ln.number_text(float(x[5]))}"
    released = opened(page, src="Type numbers", typed=text, **query)
    shown = {r["readout"]["key"]: r["readout"] for r in _component_data(released, "readout")}
    frame = payload["frames"][k]["readouts"]
    assert frame
    for r in frame:  # formula, metrics, deltas and help, as sent
        assert shown[r["key"]] == r
