"""A quiz answer's link opens the page in the state its question describes, and that page shows the
quiz's answer: the gradient check's best step, the Precision kernels' σ² and verdicts, RMSNorm's two
placements of ε, the training run's spread, the fused kernel's output.

Each question is opened for the first seeds (of 0 … 199) that give each kind of answer it has, so
every branch of its text is opened at least once.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable

import pytest
from apptest_support import charts, open_page, page_text, plotly_array
from live_support import page_metrics
from streamlit.testing.v1 import AppTest

from layernorm.labs.precision import STATUS_WORDS
from layernorm.labs.quiz import make_quiz
from layernorm.labs.quiz_kit import Question, g
from layernorm.labs.stepping import NORMALIZATIONS
from ui.navigation import page_file

SEEDS = range(200)


def _num(text: str) -> float:
    head = re.match(r"[−\-]?(?:∞|NaN|[0-9.]+(?:e[+−\-]?\d+)?)", text.strip())
    assert head is not None, text
    return float(head.group(0).replace("−", "-").replace("∞", "inf"))


def _kind(q: Question) -> str:
    """What kind of answer a question drew: its right option with the numbers taken out."""
    return re.sub(r"[−\-]?[0-9][0-9.e+−\-]*", "#", q.options[q.answer])


def _cases(key: str, kinds: Callable[[Question], str] = _kind) -> list[tuple[int, Question]]:
    """The first seed of each kind of answer ``key`` draws."""
    found: dict[str, tuple[int, Question]] = {}
    for seed in SEEDS:
        q = next(q for q in make_quiz(seed) if q.key == key)
        found.setdefault(kinds(q), (seed, q))
    return list(found.values())


def _open(q: Question) -> AppTest:
    path, _, query = q.link.partition("?")
    at = open_page(page_file(path), **dict(urllib.parse.parse_qsl(query)))
    notes = [str(w.value) for w in [*at.warning, *at.info] if "link" in str(w.value)]
    assert notes == [], (q.link, notes)  # every value is one the page offers
    return at


def _ids(cases: list[tuple[int, Question]]) -> list[str]:
    return [f"seed {seed}" for seed, _ in cases]


# --- Gradients: the best step ----------------------------------------------------------------------

GRADIENT = _cases("finite-difference-step", lambda q: q.options[q.answer])


@pytest.mark.parametrize(("seed", "q"), GRADIENT, ids=_ids(GRADIENT))
def test_the_gradient_checks_link_shows_the_quizs_best_step(seed: int, q: Question) -> None:
    best = re.findall(r"agree best at h = (\S+) ", page_text(_open(q)))
    assert best, q.link
    assert float(best[0].replace("−", "-")) == float(q.options[q.answer]), (seed, q.link)


def test_the_gradient_check_draws_several_best_steps() -> None:
    assert len(GRADIENT) >= 3


# --- Precision: the verdict of each method ---------------------------------------------------------


def _verdicts(at: AppTest, dtype: str) -> dict[str, str]:
    """Precision's sentence "In **dtype** at this offset: one-pass: …; two-pass: …; Welford: …", by method."""
    line = next(
        line for line in page_text(at).splitlines() if line.startswith(f"In **{dtype}** at this offset: ")
    )
    body = line.split("at this offset: ", 1)[1].rsplit(". Exact:", 1)[0]
    if body.startswith("every method: "):
        return dict.fromkeys(("one-pass", "two-pass", "Welford"), body.removeprefix("every method: "))
    return dict(part.split(": ", 1) for part in body.split("; "))


ONE_PASS = _cases("one-pass-float32") + _cases("one-pass-constant")


@pytest.mark.parametrize(("seed", "q"), ONE_PASS, ids=[f"{q.key} {i}" for i, q in ONE_PASS])
def test_a_one_pass_questions_link_shows_its_variance(seed: int, q: Question) -> None:
    shown = _verdicts(_open(q), "float32")["one-pass"]
    right = q.options[q.answer]
    assert shown.startswith("σ² = ") and _num(shown.removeprefix("σ² = ")) == pytest.approx(
        _num(right), rel=1e-3
    )
    assert (STATUS_WORDS["negative_variance"] in shown) == ("NaN" in right)


SQUARES = _cases("square-overflow-float32") + _cases("square-overflow-float16")


@pytest.mark.parametrize(("seed", "q"), SQUARES, ids=[f"{q.key} {i}" for i, q in SQUARES])
def test_a_square_overflow_questions_link_shows_its_verdict(seed: int, q: Question) -> None:
    dtype = q.key.rsplit("-", 1)[1]
    shown = _verdicts(_open(q), dtype)["two-pass"]
    right = q.options[q.answer]
    if right.startswith("nothing overflows"):
        assert shown.startswith("σ² = ") and _num(shown.removeprefix("σ² = ")) == pytest.approx(
            _num(right.split("σ² = ")[1]), rel=1e-3
        )
    else:
        assert shown == right.split(";")[0], (shown, right)


EPS16 = _cases("eps-underflow-float16", lambda q: q.options[q.answer][:3])


@pytest.mark.parametrize(("seed", "q"), EPS16, ids=_ids(EPS16))
def test_the_float16_eps_questions_link_shows_its_verdict(seed: int, q: Question) -> None:
    shown = _verdicts(_open(q), "float16")["two-pass"]
    assert (STATUS_WORDS["zero_divisor"] in shown) == q.options[q.answer].startswith("NaN"), (shown, q.link)


def test_both_float16_eps_answers_are_opened() -> None:
    assert len(EPS16) == 2


# --- Estimators and ε: RMSNorm's ε inside and outside ----------------------------------------------

RMS = _cases("rms-eps-placement", lambda q: q.link.rsplit("eps=", 1)[1])


@pytest.mark.parametrize(("seed", "q"), RMS, ids=_ids(RMS))
def test_the_rms_placement_questions_link_shows_both_outputs(seed: int, q: Question) -> None:
    metrics = dict(page_metrics(_open(q)))
    inside, outside = (float(v.split(": ")[1].replace("−", "-")) for v in q.options[q.answer].split("; "))
    assert _num(metrics["RMSNorm₁, ε inside √"]) == pytest.approx(inside, rel=1e-3)
    assert _num(metrics["RMSNorm₁, ε outside"]) == pytest.approx(outside, rel=1e-3)


# --- Training, step by step: the LayerNorm run's last layer -----------------------------------------

DRIFT = _cases("training-drift", lambda q: q.link)[:3]


@pytest.mark.parametrize(("seed", "q"), DRIFT, ids=_ids(DRIFT))
def test_the_training_drift_questions_link_opens_its_run(seed: int, q: Question) -> None:
    at = _open(q)
    depth = int(dict(urllib.parse.parse_qsl(q.link.partition("?")[2]))["steps_depth"])
    axis = "x" if NORMALIZATIONS.index("layernorm") == 0 else f"x{NORMALIZATIONS.index('layernorm') + 1}"
    spread = next(
        plotly_array(t["y"])
        for c in charts(at)
        if "std of each layer's output" in json.dumps(json.loads(c.spec)["layout"].get("title", ""))
        for t in json.loads(c.spec)["data"]
        if t.get("name") == f"layer {depth}" and t.get("xaxis") == axis
    )
    start, end = re.findall(r"moves from (\S+) to (\S+) ", q.options[q.answer])[0]
    assert (g(spread[0]), g(spread[-1])) == (start, end)


# --- Precision's fused kernel ------------------------------------------------------------------------

FUSED = _cases("fused-affine")


@pytest.mark.parametrize(("seed", "q"), FUSED, ids=_ids(FUSED))
def test_the_fused_questions_link_shows_its_output(seed: int, q: Question) -> None:
    at = _open(q)
    table = next(t.value for t in at.table if "fused · exact μ, σ² (float64)" in t.value.columns)
    column = list(table["fused · exact μ, σ² (float64)"])
    copies = int(re.findall(r"holds (\d+) copies", q.prompt)[0])
    assert len({*column[:copies]}) == 1 and g(float(column[0])) == q.options[q.answer].split(",")[0]
