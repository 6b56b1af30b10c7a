"""A quiz answer's link opens the page in the state its question describes, and that page shows the
quiz's answer: the gradient check's best step, the Precision kernels' σ² and verdicts, RMSNorm's two
placements of ε, the training run's spread, the fused kernel's output, F.batch_norm's running mean,
LayerNorm's output for Training vs inference's example, RMSNorm's first output beside LayerNorm's, Undo's
miss, one γ, β's means for a MiniLM sentence, and LayerNorm of c·x + b at the sidebar's ε.

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
from live_support import page_metrics, page_tex
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


# --- Training vs inference: F.batch_norm's running mean, and the example LayerNorm treats alike ------


def _vector(text: str) -> list[float]:
    """The numbers of the first ``[a, b, …]`` in a text (real minus signs)."""
    inside = re.search(r"\[([^\]]+)\]", text)
    assert inside is not None, text
    return [_num(v) for v in inside.group(1).split(",")]


def _metric(at: AppTest, label: str) -> str:
    return dict(page_metrics(at))[label]


def test_the_running_mean_questions_link_shows_its_new_running_mean() -> None:
    q = next(q for q in make_quiz(0) if q.key == "running-mean")
    at = _open(q)
    right = q.options[q.answer]
    assert _metric(at, "running mean after") == right
    old, batch = re.findall(r"running mean is (\S+) and the batch's mean is (\S+)\. ", q.prompt)[0]
    assert f"own mean {batch} and" in page_text(at) and f"mean {old} → {right}," in page_text(at)
    assert "x = [[2], [6]]" in q.prompt and "x = [[2], [6]]" in page_text(at)


def _param(q: Question, key: str) -> str:
    """The value ``q``'s link gives the page's control ``key`` ("" when it gives none)."""
    return dict(urllib.parse.parse_qsl(q.link.partition("?")[2])).get(key, "")


TRAIN_EVAL = _cases("train-eval", lambda q: _param(q, "tvi_d"))


@pytest.mark.parametrize(("seed", "q"), TRAIN_EVAL, ids=_ids(TRAIN_EVAL))
def test_the_train_eval_questions_link_shows_its_example_in_inference(seed: int, q: Question) -> None:
    at = _open(q)
    told = r"x = (\S+) in feature (\d+), and LayerNorm \(ε = 1e−5\) gives (\S+) "
    x, feature, y = re.findall(told, q.prompt)[0]
    shown = dict(page_metrics(at))
    assert _num(shown[f"input x, feature {feature}"]) == pytest.approx(_num(x), rel=1e-3)
    assert _num(shown["LayerNorm (both modes)"]) == pytest.approx(_num(y), rel=1e-3)
    assert q.options[q.answer] == f"{y}, the same" and "BatchNorm (inference)" in shown


def test_the_train_eval_question_opens_every_d_it_draws() -> None:
    assert len(TRAIN_EVAL) == 3


# --- Estimators and ε: RMSNorm beside LayerNorm --------------------------------------------------------

RMS_CENTRING = _cases("rms-centring", lambda q: q.link)[:3]


@pytest.mark.parametrize(("seed", "q"), RMS_CENTRING, ids=_ids(RMS_CENTRING))
def test_the_rms_centring_questions_link_shows_both_first_outputs(seed: int, q: Question) -> None:
    at = _open(q)
    x = _vector(q.prompt)
    assert f"x = [{', '.join(g(v) for v in x)}] (d = 3;" in page_text(at)
    layer = re.findall(r"LayerNorm's first output for x = \[[^\]]+\] is (\S+)\. ", q.prompt)[0]
    assert _num(_metric(at, "LayerNorm x̂₁")) == pytest.approx(_num(layer), rel=1e-3)
    assert _num(_metric(at, "RMSNorm₁, ε inside √")) == pytest.approx(_num(q.options[q.answer]), rel=1e-3)


# --- Scale & shift: Undo for the sidebar's vector, and one γ, β for a whole MiniLM sentence ------------

UNDO = _cases("undo", lambda q: q.link)[:3]


def _said_eps(q: Question) -> float:
    """The ε a question's prompt names ("With ε = 1e−5, …")."""
    return _num(re.findall(r"With ε = (\S+),", q.prompt)[0])


@pytest.mark.parametrize(("seed", "q"), UNDO, ids=_ids(UNDO))
def test_the_undo_questions_link_shows_its_miss(seed: int, q: Question) -> None:
    at = _open(q)
    assert _said_eps(q) == at.session_state["eps"]  # the sidebar's ε, which Undo and LayerNorm use
    mu, sigma = re.findall(r"μ = (\S+), σ = (\S+)\. With ε = ", q.prompt)[0]
    caption = next(line for line in page_text(at).splitlines() if line.startswith("γ = σ = "))
    shown_sigma, shown_mu = re.findall(r"γ = σ = (\S+) and β = μ = (\S+):", caption)[0]
    assert _num(shown_sigma) == pytest.approx(_num(sigma), rel=1e-3)
    assert _num(shown_mu) == pytest.approx(_num(mu), rel=1e-3)
    miss = re.findall(r"largest \|y − x\| (\S+)\)$", q.options[q.answer])[0]
    assert _num(_metric(at, "largest |y − x|")) == pytest.approx(_num(miss), rel=1e-3)


SHARED = _cases("shared-undo", lambda q: _param(q, "ss_many_sentence"))[:3]


@pytest.mark.parametrize(("seed", "q"), SHARED, ids=_ids(SHARED))
def test_the_shared_undo_questions_link_shows_its_tokens_means(seed: int, q: Question) -> None:
    at = _open(q)
    after = re.findall(r"after it every token has mean (\S+) and spread", page_text(at))[0]
    assert _num(after) == pytest.approx(_num(q.options[q.answer]), rel=1e-3)
    gamma, beta = re.findall(r"γ = its σ = (\S+), β = its μ = (\S+), in every feature", q.prompt)[0]
    shown_gamma, shown_beta = _metric(at, "shared γ = σ, β = μ of the token").split(", ")
    assert _num(shown_gamma) == pytest.approx(_num(gamma), rel=1e-3)
    assert _num(shown_beta) == pytest.approx(_num(beta), rel=1e-3)


def test_the_shared_undo_question_opens_several_sentences() -> None:
    assert len(SHARED) == 3


# --- Invariances: LayerNorm of c·x + b ---------------------------------------------------------------------

INVARIANCE = _cases("invariance", lambda q: _param(q, "inv_c"))


def _tex_vector(tex: list[str], start: str) -> list[float]:
    line = next(t for t in tex if t.startswith(start))
    inside = line.split(r"\left[", 1)[1].split(r"\right]", 1)[0]
    return [float(v.strip().removeprefix("\\ ")) for v in inside.split(",")]


@pytest.mark.parametrize(("seed", "q"), INVARIANCE, ids=_ids(INVARIANCE))
def test_the_invariance_questions_link_shows_both_outputs_and_the_change(seed: int, q: Question) -> None:
    at = _open(q)
    tex = page_tex(at)
    eps = re.findall(r"\\epsilon / c\^2 = (\S+) \\times 10\^\{(-?\d+)\} / ", "\n".join(tex))[0]
    assert _said_eps(q) == float(f"{eps[0]}e{eps[1]}")  # the sidebar's ε, in the page's formula
    before = re.findall(r"\) = (\[[^\]]+\])\. What is", q.prompt)[0]
    assert _tex_vector(tex, "y(x) = ") == pytest.approx(_vector(before), rel=1e-3)
    right = q.options[q.answer]
    assert _tex_vector(tex, r"y(c\,x + b) = ") == pytest.approx(_vector(right), rel=1e-3)
    change = re.findall(r"largest change (\S+)\)$", right)[0]
    assert _num(_metric(at, "LayerNorm moved by")) == pytest.approx(_num(change), rel=1e-3)


def test_the_invariance_question_opens_every_scale_it_draws() -> None:
    assert len(INVARIANCE) == 3
