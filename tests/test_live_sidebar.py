"""The sidebar's live ε, γ and β (ui.live.sidebar): on the pages that say what they change, every frame
of every value is what the page shows at that value, and a page that changes nothing with them gets
frames without numbers."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import pytest
from live_support import live_data, page_metrics
from streamlit.testing.v1 import AppTest
from test_pages_steps import DEFAULT_X, FULL, HOME, MEAN, SS, STD, VAR, expected_metrics, ok

import layernorm as ln
from ui import live
from ui.live import full_formula, offered, scale_shift, sidebar
from ui.settings import EPS_CHOICES, GAMMA_BETA_SLIDER


def opened(page: str, **query: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    ok(at.run())
    if page != HOME:
        ok(at.switch_page(page).run())
    return at


def sidebar_payload(at: AppTest, key: str) -> dict[str, Any]:
    """The frames of a sidebar slider. A d = 8 input's go with the first draw that has them; a page
    whose frames the browser already has (Home's are Full formula's) sends their id, so ask again."""
    (data,) = [d for d in live_data(at) if d["link"]["key"] == key]
    if "frames" not in data["payload"]:
        at.session_state["_live_sent"] = {}
        ok(at.run())
        (data,) = [d for d in live_data(at) if d["link"]["key"] == key]
    return data["payload"]


def frame_metrics(payload: dict[str, Any], i: int) -> list[tuple[str, str]]:
    return [(m["label"], m["value"]) for r in payload["frames"][i]["readouts"] for m in r["metrics"]]


GB = offered(*GAMMA_BETA_SLIDER)


def test_scale_shift_frames_are_the_page_at_every_gamma_and_beta() -> None:
    at = opened(SS)
    gammas, betas = sidebar_payload(at, "gamma"), sidebar_payload(at, "beta")
    assert gammas["values"] == GB and betas["values"] == GB
    for i, g in enumerate(GB):
        assert frame_metrics(gammas, i) == expected_metrics(SS, DEFAULT_X, gamma=g), g
        assert frame_metrics(betas, i) == expected_metrics(SS, DEFAULT_X, beta=g), g
    # the chart of y: each frame's bars are the core's y at that γ, bit for bit
    arrays = [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in gammas["arrays"]]
    for i in (0, 60, 120):
        want = scale_shift.frame(DEFAULT_X, np.full(8, GB[i]), np.zeros(8), 1e-5).chart(
            scale_shift.CHART_BARS
        )
        (chart,) = [c for c in gammas["frames"][i]["charts"] if c["key"] == scale_shift.CHART_BARS]
        for ref, trace in zip(chart["traces"], want.traces, strict=True):
            assert arrays[ref].tobytes() == np.asarray(trace, dtype="<f8").tobytes()


def test_the_frames_are_at_the_other_sliders_values() -> None:
    """γ's frames are at the β and ε the sidebar has (a link's here)."""
    at = opened(SS, beta="1.5", eps="1e-02")
    gammas = sidebar_payload(at, "gamma")
    for i in (0, 33, 120):
        assert frame_metrics(gammas, i) == expected_metrics(SS, DEFAULT_X, gamma=GB[i], beta=1.5, eps=1e-2)


@pytest.mark.parametrize("page", [FULL, HOME])
def test_full_formula_and_home_frames_are_the_page_at_every_eps(page: str) -> None:
    at = opened(page)
    eps = sidebar_payload(at, "eps")
    assert eps["values"] == EPS_CHOICES
    for i, e in enumerate(EPS_CHOICES):
        assert frame_metrics(eps, i) == expected_metrics(FULL, DEFAULT_X, eps=e), e
    shown = eps["frames"][EPS_CHOICES.index(1e-5)]["readouts"]
    assert [r["key"] for r in shown] == [full_formula.XHAT, full_formula.Y]
    assert page_metrics(at) == expected_metrics(FULL, DEFAULT_X)


def test_a_page_that_shows_nothing_they_change_gets_frames_without_numbers() -> None:
    at = opened(MEAN)
    for key in ("eps", "gamma", "beta"):
        payload = sidebar_payload(at, key)
        assert all(f == {"readouts": [], "charts": []} for f in payload["frames"])


@pytest.mark.usefixtures("empty_frame_caches")
def test_a_second_session_on_the_same_page_and_input_reuses_the_frames(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A class opening a lesson on its default vector: the sidebar's frames are made for the first
    student only, and every student gets the same ones."""
    made: list[str] = []
    real = live.payload

    def counted(*args: Any, **kwargs: Any) -> dict[str, object]:
        made.append("payload")
        return real(*args, **kwargs)

    monkeypatch.setattr(live, "payload", counted)
    first = opened(SS)
    assert made, "the first session made no frames"
    made.clear()
    second = opened(SS)
    assert not made, "a second session on the same page and input made its frames again"
    for key in ("eps", "gamma", "beta"):
        assert sidebar_payload(second, key) == sidebar_payload(first, key), key


def test_a_session_gets_the_frames_of_its_own_input_not_anothers() -> None:
    """Frames are kept per page, control and input: a student whose ε came from a link, then one on
    the default ε, each get γ's frames at their own ε."""
    linked = opened(SS, eps="1e-02")
    plain = opened(SS)
    for at, eps in ((linked, 1e-2), (plain, 1e-5), (opened(SS, eps="1e-02"), 1e-2)):
        gammas = sidebar_payload(at, "gamma")
        for i in (0, 120):
            assert frame_metrics(gammas, i) == expected_metrics(SS, DEFAULT_X, gamma=GB[i], eps=eps)


@pytest.mark.parametrize(("page", "reads_gamma"), [(VAR, False), (STD, False), (FULL, True)])
def test_a_page_that_reads_neither_gamma_nor_beta_gets_their_frames_from_one_view(
    monkeypatch: pytest.MonkeyPatch, page: str, reads_gamma: bool
) -> None:
    """Variance and Standardize never read γ or β: their frames of γ and β are the page as it is, made
    once, not once per value (121 views each); Full formula reads both and gets a view per value."""
    moved: list[dict[str, Any]] = []
    real = sidebar.lab_at

    def counted(lab: Any, **kw: Any) -> Any:
        moved.append(kw)
        return real(lab, **kw)

    at = opened(page)  # Home first, whose view reads both
    live.clear_frame_caches()
    monkeypatch.setattr(sidebar, "lab_at", counted)
    ok(at.run())
    # The frames' key is the input at the slider's default (the frames set the value they show), so
    # views are counted at the other values.
    for key, arg, default in (("gamma", "g", 1.0), ("beta", "b", 0.0)):
        made = [kw for kw in moved if kw.get(arg, default) != default]
        assert len(made) == (len(GB) - 1 if reads_gamma else 0), (key, len(made))
        frames = sidebar_payload(at, key)["frames"]
        assert reads_gamma or all(f == frames[0] for f in frames), key
    eps = [kw for kw in moved if kw.get("eps", ln.DEFAULT_EPS) != ln.DEFAULT_EPS]
    assert len(eps) == len(EPS_CHOICES) - 1


@pytest.mark.usefixtures("empty_frame_caches")
def test_a_move_of_gamma_makes_the_frames_of_beta_and_eps_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slider's frames set its own value at each of theirs, so they are the same wherever it stands:
    after γ moves, β's and ε's frames are made at the new γ, and γ's are the ones already made."""
    made: list[object] = []
    real = sidebar._shared_payload

    def counted(where: tuple[object, ...], make: Any) -> dict[str, object]:
        def making() -> dict[str, object]:
            made.append(where[1])
            return make()

        return real(where, making)

    monkeypatch.setattr(sidebar, "_shared_payload", counted)
    first = opened(SS)  # Home's frames, then the page's
    assert set(made) == {"beta", "eps", "gamma"}
    made.clear()
    moved = opened(SS, gamma="2")
    assert set(made) == {"beta", "eps"}
    assert sidebar_payload(moved, "gamma") == sidebar_payload(first, "gamma")
    for i in (0, 120):  # γ's: the page at β = 0 and each γ, as before; β's: at the new γ
        gammas, betas = sidebar_payload(moved, "gamma"), sidebar_payload(moved, "beta")
        assert frame_metrics(gammas, i) == expected_metrics(SS, DEFAULT_X, gamma=GB[i])
        assert frame_metrics(betas, i) == expected_metrics(SS, DEFAULT_X, gamma=2.0, beta=GB[i])
