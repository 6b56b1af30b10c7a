"""The quiz over many seeds: every question states what its answer depends on, every answer is the
core's, and no number is printed so that it looks exact when it is not.

The links themselves are opened in AppTest by ``tests/labs/test_quiz_links.py``.
"""

from __future__ import annotations

import math
import re
import urllib.parse

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.gradient_check import CHECK_STEPS, finite_difference_check
from layernorm.labs import quiz_more, quiz_numerics
from layernorm.labs.precision import STATUS_WORDS, layer_norm_in_dtype
from layernorm.labs.quiz import BUILDERS, make_quiz
from layernorm.labs.quiz_kit import Question, g
from layernorm.labs.stepping import MAX_STEPS, output_drift, train_stepped

SEEDS = range(200)
NEW_KEYS = {
    "one-pass-float32",
    "one-pass-constant",
    "square-overflow-float32",
    "square-overflow-float16",
    "eps-underflow-float16",
    "rms-eps-placement",
}


def _quizzes() -> list[dict[str, Question]]:
    return [{q.key: q for q in make_quiz(seed)} for seed in SEEDS]


QUIZZES = _quizzes()


def _params(q: Question) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(q.link.partition("?")[2]))


def _typed(q: Question) -> np.ndarray:
    return np.array([float(v) for v in _params(q)["typed"].split(",")])


def _num(text: str) -> float:
    """The number a text starts with (real minus signs, "NaN", "∞")."""
    head = re.match(r"[−\-]?(?:∞|NaN|[0-9.]+(?:e[+−\-]?\d+)?)", text)
    assert head is not None, text
    return float(head.group(0).replace("−", "-").replace("∞", "inf"))


# --- the digits --------------------------------------------------------------------------------------


def _significant(text: str) -> int:
    return len(text.lstrip("−").split("e")[0].replace(".", "").lstrip("0"))


def _honest(v: float, text: str) -> bool:
    """A shown number reads as the value itself only when it is (to float64 rounding); otherwise it
    visibly carries its digits: four or more significant ones, with a decimal point or an exponent."""
    shown = float(text.replace("−", "-"))
    if abs(shown - v) <= 64 * 2.0**-52 * abs(v):
        return True
    return _significant(text) >= 4 and ("." in text or "e" in text)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_g_never_prints_a_rounded_number_as_if_it_were_exact(v: float) -> None:
    assert _honest(v, g(v)), (v, g(v))


def test_g_on_the_numbers_of_the_issue() -> None:
    y = np.array([2.0, 6.0]) / np.sqrt(1 + 1e-5)  # F.batch_norm with running statistics 0 and 1
    assert [g(v) for v in y] == ["1.99999", "5.99997"]  # not "2" and "6"
    assert g(4845.546875) == "4845.5" and g(242.27734375) == "242.3"
    assert g(40007.0) == "40007" and g(-128.0) == "−128" and g(0.9 * 2 + 0.1 * 9) == "2.7"
    assert g(float("nan")) == "NaN" and g(float("-inf")) == "−∞"


def test_no_quiz_text_shows_the_batch_as_its_own_output() -> None:
    for quiz in QUIZZES[:5]:
        q = quiz["functional-training"]
        assert "[2, 6]" not in q.explanation + q.options[q.answer]
        assert "[1.99999, 5.99997]" in q.explanation


# --- every question, every seed ----------------------------------------------------------------------


def test_every_question_of_every_seed_has_one_answer_that_reads_unlike_every_option() -> None:
    for quiz in QUIZZES:
        assert len(quiz) == len(BUILDERS)
        for q in quiz.values():
            assert len(set(q.options)) == len(q.options) >= 3, q
            assert all(q.options[q.answer] != o for i, o in enumerate(q.options) if i != q.answer)


def test_the_new_questions_are_in_the_quiz() -> None:
    assert NEW_KEYS <= set(QUIZZES[0]) and len(quiz_numerics.BUILDERS) == len(NEW_KEYS)


def test_the_gradient_checks_best_step_is_the_one_its_link_opens_for_every_seed() -> None:
    """The prompt names the upstream gradient (one-hot at k) and the link sets the page to it."""
    answers = set()
    for quiz in QUIZZES:
        q = quiz["finite-difference-step"]
        p = _params(q)
        assert p["grad_kind"] == "One-hot", q.link  # the page's default is a random g the prompt never states
        k, x = int(p["grad_k"]), _typed(q)
        assert f"one-hot at k = {k}" in q.prompt and f"x = [{', '.join(g(v) for v in x)}]" in q.prompt
        check = finite_difference_check(
            x, None, None, np.eye(x.size)[k - 1], parameter="x", index=0, steps=CHECK_STEPS
        )
        best = CHECK_STEPS[check.best]
        assert float(q.options[q.answer]) == best
        assert p["grad_check_h"] == f"{best:.0e}".replace("e-0", "e-")  # as the page writes it: 1e-5
        assert np.count_nonzero(check.errors == check.errors[check.best]) == 1  # no tie
        answers.add(best)
    assert len(answers) >= 3  # the answer depends on the draw


def test_the_one_pass_answers_are_the_precision_kernels() -> None:
    for quiz in QUIZZES:
        for key in ("one-pass-float32", "one-pass-constant"):
            q = quiz[key]
            x = _typed(q)
            var = float(layer_norm_in_dtype(x, dtype="float32", method="one_pass").var[0])
            right = q.options[q.answer]
            assert _num(right) == var and var != float(ln.variance(x))
            assert ("NaN" in right) == (var < 0)
            assert _params(q)["prec_dtype"] == "float32" and _params(q)["prec_offset"] == "0"
    near = {float(np.mean(_typed(quiz["one-pass-float32"]))) // 1000 for quiz in QUIZZES}
    assert near == {40.0}  # values near 4·10⁴
    signs = {
        np.sign(_num(quiz["one-pass-constant"].options[quiz["one-pass-constant"].answer])) for quiz in QUIZZES
    }
    assert -1.0 in signs  # the negative variance of a fast one-pass kernel


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_square_overflow_answers_are_the_two_pass_kernels(dtype: str) -> None:
    overflowed = 0
    for quiz in QUIZZES:
        q = quiz[f"square-overflow-{dtype}"]
        x = _typed(q)
        assert np.all(np.abs(x) < np.finfo(dtype).max)  # the input itself fits
        run = layer_norm_in_dtype(x, dtype=dtype, method="two_pass")
        status = str(run.status[0])
        right = q.options[q.answer]
        if status == "ok":
            assert right.startswith("nothing overflows")
        else:
            assert right.startswith(STATUS_WORDS[status])
            overflowed += status == "square_overflow"
        assert _params(q)["prec_dtype"] == dtype
    assert overflowed > len(QUIZZES) // 2


def test_the_float16_eps_answer_follows_whether_eps_survives() -> None:
    seen = set()
    for quiz in QUIZZES:
        q = quiz["eps-underflow-float16"]
        p = _params(q)
        eps = float(p.get("eps", "1e-05"))
        assert np.all(_typed(q) == 0) and f"ε = {g(eps)}" in q.prompt
        nan = str(layer_norm_in_dtype(np.zeros(4), dtype="float16", method="two_pass", eps=eps).status[0])
        assert q.options[q.answer].startswith("NaN") == (nan == "zero_divisor") == (np.float16(eps) == 0)
        seen.add(nan)
    assert seen == {"zero_divisor", "ok"}


def test_the_rms_placement_answer_is_the_cores() -> None:
    for quiz in QUIZZES:
        q = quiz["rms-eps-placement"]
        x, eps = _typed(q), float(_params(q)["eps"])
        assert f"ε = {g(eps)}" in q.prompt
        inside = float(x[0] / np.sqrt(np.mean(x * x) + eps))  # NumPy itself, not the core
        outside = float(x[0] / (np.sqrt(np.mean(x * x)) + eps))
        assert q.options[q.answer] == f"inside: {g(inside)}; outside: {g(outside)}"


def test_the_training_drift_answer_is_the_run_its_link_opens() -> None:
    for quiz in QUIZZES[:40]:
        q = quiz["training-drift"]
        p = _params(q)
        lr, depth, seed = float(p["steps_lr"]), int(p["steps_depth"]), int(p["steps_seed"])
        assert int(p["steps_at"]) == MAX_STEPS
        assert (
            f"{depth} hidden ReLU layers" in q.prompt and f"learning rate {lr:g} from seed {seed}" in q.prompt
        )
        run = train_stepped(
            "layernorm", lr=lr, depth=depth, width=quiz_more.STEPS_WIDTH, steps=MAX_STEPS, seed=seed
        )
        d = output_drift(run, MAX_STEPS)
        assert d is not None and d.change is not None and d.change != 0
        assert q.options[q.answer].startswith(f"moves from {g(d.start)} to {g(d.end)}")
        assert (
            f"every γ stayed within {g(d.gamma_off)} of 1 and every |β| at most {g(d.beta_off)}"
            in q.explanation
        )
        # the old answer "γ and β are learned, and they set them" is gone from every option
        assert not any("they set them" in o for o in q.options)


def test_every_drift_run_the_quiz_can_draw_moves() -> None:
    for lr in quiz_more.DRIFT_RUNS["lr"]:
        for depth in quiz_more.DRIFT_RUNS["depth"]:
            for seed in quiz_more.DRIFT_RUNS["seed"]:
                d = quiz_more._layernorm_drift(float(lr), int(depth), int(seed))
                assert d.change is not None and abs(d.change) > 1e-3 and math.isfinite(d.end)


def test_how_many_stats_never_offers_batchnorms_count_as_the_per_token_one() -> None:
    for quiz in QUIZZES:
        q = quiz["how-many-stats"]
        counts = [o.split(" ")[0] for o in q.options]
        assert len(set(counts)) == len(counts), q.options


def test_every_typed_input_is_in_its_prompt_with_every_digit() -> None:
    """A question whose link types its x in gives that x in the prompt exactly as typed: the prompt
    said "x = [6543.2, 6543.2, 6543.2]" for 6543.21, the number its link and its answer were for."""
    from urllib.parse import parse_qs, urlsplit

    from layernorm.labs.quiz_kit import full

    missing = []
    for seed in range(60):
        for q in make_quiz(seed):
            typed = parse_qs(urlsplit(q.link).query).get("typed")
            if typed and q.key != "eps-near-constant":  # that one writes x exactly as [c − δ, c + δ]
                for text in typed[0].split(","):
                    if full(float(text)) not in q.prompt:
                        missing.append((seed, q.key, text))
    assert missing == []
