"""The guided tour's stops (ui/tour_stops.py) and card (ui/tour.py), through AppTest: every stop opens from
its link with its card and outline, nothing is said done before the student acts, what the card says once
they act is the page's numbers, and Leave, Resume and a link's out-of-range step behave. The browser walk
is tests/e2e/test_tour_browser.py."""

from __future__ import annotations

import pytest
from apptest_support import ok, open_page
from live_support import live_metrics
from streamlit.testing.v1 import AppTest

from ui import session
from ui.navigation import page_file
from ui.tour_stops import STOPS, TITLES

DONE_ICON = ":material/check_circle:"


def said_done(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.success if e.icon == DONE_ICON]


def test_the_stops_make_one_path_of_fifteen_to_twenty() -> None:
    assert 15 <= len(STOPS) <= 20
    assert STOPS[0].page == "" and STOPS[-1].page == "quiz"  # from Home to the quiz
    assert {s.page for s in STOPS} <= set(TITLES)
    for stop in STOPS:
        if stop.watch is not None:
            assert session.declared_widget(stop.watch), stop.watch
    assert sum(s.done is not None for s in STOPS) >= len(STOPS) * 2 // 3  # most stops ask for one thing


@pytest.mark.parametrize("n", range(1, len(STOPS) + 1))
def test_each_stops_link_opens_its_card_with_nothing_done(n: int) -> None:
    stop = STOPS[n - 1]
    at = open_page(page_file("/" + stop.page), tour=str(n))
    assert [h.value for h in at.subheader if h.value == stop.title] == [stop.title]
    assert f"step {n} of {len(STOPS)}" in " ".join(str(c.value) for c in at.caption)
    assert said_done(at) == []  # nothing done on arrival
    if isinstance(stop.target, str):  # the outline's style names it (the browser walk finds the element)
        assert any(f".st-key-{stop.target} " in str(h.proto.body) for h in at.get("html")), stop.target
    assert at.query_params["tour"] == [str(n)] or at.query_params["tour"] == str(n)


def test_moving_c_on_mean_says_mu_moved_by_c() -> None:
    at = open_page("pages/1_mean.py", tour="2")
    ok(at.slider(key="mean_shift").set_value(1.0).run())
    assert said_done(at) == [
        "c = 1.00: μ moved from 0.352 to 1.352, by c, while x − μ stayed where it was (up to float64 "
        "rounding): centring takes away any shift that every feature shares."
    ]


def test_stretching_by_two_says_sigma2_grew_four_times() -> None:
    at = open_page("pages/2_variance.py", tour="4")
    ok(at.select_slider(key="var_scale").set_value(2.0).run())
    assert said_done(at) == [
        "a = 2.0: σ² went from 0.3098 to 1.239, a² = 4 times as much: every distance from μ was multiplied "
        "by a, and σ² squares the distances."
    ]


def test_a_variance_just_under_one_never_reads_as_one() -> None:
    at = open_page("pages/3_standardize.py", tour="5")
    ok(at.select_slider(key="std_spread").set_value(1.0).run())
    (said,) = said_done(at)
    assert "x̂'s variance is 0.99998" in said, said  # σ²/(σ² + ε) = 0.4913/(0.4913 + 1e-5), not "1"


def test_leave_keeps_the_step_for_resume() -> None:
    at = open_page("pages/1_mean.py", tour="3")
    ok(at.button(key="tour_leave").click().run())
    assert not [h for h in at.subheader if h.value == STOPS[2].title]
    assert at.sidebar.button(key="tour_start").label == "Resume the tour at step 3"


def test_a_link_past_the_last_step_says_so_and_opens_the_last() -> None:
    at = open_page("pages/16_quiz.py", tour="99")
    assert f"step {len(STOPS)} of {len(STOPS)}" in " ".join(str(c.value) for c in at.caption)
    assert any("tour step" in str(w.value) for w in [*at.warning, *at.info, *at.caption])


def test_another_token_on_scale_and_shift_gives_the_pages_misses() -> None:
    n = next(i for i, s in enumerate(STOPS, 1) if s.watch == "ss_many_token")
    at = open_page("pages/4_scale_shift.py", tour=str(n))
    ok(at.selectbox(key="ss_many_token").set_value(1).run())  # the sentence's token 1 (token 0 on arrival)
    metrics = {m.label: m.value for m in at.metric}
    (said,) = said_done(at)
    mine = next(v for k, v in metrics.items() if k.endswith("largest |y − x|") and k.startswith("token"))
    others = metrics["every other token: largest |y − x|"]
    assert said.startswith(f"Token 1 comes back to within {mine}; the other"), (said, metrics)
    assert f"by up to {others}." in said, (said, metrics)


def test_inference_before_any_training_says_the_running_averages_are_their_start() -> None:
    n = next(i for i, s in enumerate(STOPS, 1) if s.page == "train_vs_inference")
    at = open_page("pages/7_train_vs_inference.py", tour=str(n))
    ok(at.button_group(key="tvi_mode").set_value("Inference").run())
    (said,) = said_done(at)
    assert "No training batch has been seen yet" in said, said


def test_a_tenth_squared_is_a_hundredth_not_float_noise() -> None:
    at = open_page("pages/2_variance.py", tour="4")
    ok(at.select_slider(key="var_scale").set_value(0.1).run())
    (said,) = said_done(at)
    assert "a² = 0.01 times as much" in said, said  # was 0.010000000000000002


def test_a_constant_vector_says_so_where_sigma2_is_0() -> None:
    at = open_page("pages/3_standardize.py", tour="6", preset="constant")
    (said,) = said_done(at)  # ε > σ² = 0 from the start
    assert said.startswith("This vector is constant: σ² = 0, so x − μ is 0 and x̂ is exactly 0"), said
    at = open_page("pages/4_scale_shift.py", tour="7", preset="constant")
    assert not any("not far below" in str(m.value) for m in at.markdown)  # no ε is below σ² = 0
    ok(at.button(key="ss_undo").click().run())
    (said,) = said_done(at)
    assert said.endswith("a constant vector: every x is μ, and so is every y."), said


def test_a_new_draw_is_not_a_bars_move() -> None:
    at = open_page("pages/1_mean.py", tour="3")
    ok(at.sidebar.button(key="reseed").click().run())
    assert said_done(at) == []


def test_moving_alpha_on_normalization_now_gives_the_pages_fit() -> None:
    n = next(i for i, s in enumerate(STOPS, 1) if s.watch == "now_alpha")
    at = open_page(page_file("/normalization_now"), tour=str(n))
    assert said_done(at) == []
    ok(at.select_slider(key="now_alpha").set_value(2.0).run())
    metrics = dict(live_metrics(at))  # what the page's live readout shows
    (said,) = said_done(at)
    assert said.startswith(
        f"α = 2: the curve g·tanh(αx) + b, with g and b fitted, follows LayerNorm's x̂ here "
        f"with r² {metrics['r² with your α']}."
    ), (said, metrics)
    assert f"The best α for these points, {metrics['best α']}, reaches r² {metrics['r², best α']}" in said
    assert f"a straight line {metrics['r², a straight line']}." in said
