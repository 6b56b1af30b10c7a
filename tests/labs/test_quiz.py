"""The misconception quiz: questions from the core, shuffled per seed, answers hidden until checked."""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs.quiz import BUILDERS, make_quiz
from layernorm.labs.quiz_kit import Question, g

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _vector(text: str) -> np.ndarray:
    """The first ``[a, b, …]`` in a question's text (real minus signs)."""
    inside = re.search(r"\[([^\]]+)\]", text)
    assert inside is not None, text
    return np.array([float(v.replace("−", "-")) for v in inside.group(1).split(",")])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_every_quiz_is_well_formed(seed: int) -> None:
    quiz = make_quiz(seed)
    assert len(quiz) == len(BUILDERS) >= 12
    assert len({q.key for q in quiz}) == len(quiz)
    for q in quiz:
        assert len(set(q.options)) == len(q.options) >= 3
        assert q.check(q.answer)
        assert sum(q.check(i) for i in range(len(q.options))) == 1
        assert q.explanation not in q.prompt and q.link.startswith("/")
    assert make_quiz(seed) == quiz


def test_seeds_shuffle_questions_and_options() -> None:
    orders = {tuple(q.key for q in make_quiz(s)) for s in range(20)}
    assert len(orders) > 15
    positions = {next(q for q in make_quiz(s) if q.key == "divide-by").answer for s in range(40)}
    assert positions == {0, 1, 2}
    with pytest.raises(ValueError, match="seed"):
        make_quiz(-1)
    with pytest.raises(IndexError):
        make_quiz(0)[0].check(9)


@pytest.mark.parametrize("seed", range(25))
def test_live_answers_are_the_cores(seed: int) -> None:
    quiz = {q.key: q for q in make_quiz(seed)}
    q = quiz["divide-by"]
    x = _vector(q.prompt)
    assert q.options[q.answer].startswith(f"{float(ln.variance(x)):.4g}".replace("-", "−"))
    assert q.options[q.answer].endswith("(÷d, the population variance)")
    q = quiz["rms-centring"]
    x = _vector(q.prompt)
    assert "With ε = 1e−5 inside the root" in q.prompt
    assert _num(q.options[q.answer]) == pytest.approx(x[0] / np.sqrt(np.mean(x * x) + 1e-5), rel=1e-3)
    q = quiz["undo"]
    assert q.options[q.answer].startswith("[") and np.allclose(
        _vector(q.options[q.answer]), _vector(q.prompt)
    )
    q = quiz["running-mean"]
    m = float(re.findall(r"momentum = ([0-9.]+),", q.prompt)[0])
    old, new = (
        float(v) for v in re.findall(r"running mean is (\d+) and the batch's mean is (\d+)\.", q.prompt)[0]
    )
    assert (m, new) == (0.1, 4.0) and float(q.options[q.answer]) == pytest.approx((1 - m) * old + m * new)


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/16_quiz.py").run()
    assert not at.exception
    return at


def _shown_text(at: AppTest) -> str:
    parts = [e.value for e in at.markdown] + [e.value for e in at.text]
    parts += [e.body for e in (*at.success, *at.error, *at.info, *at.warning)]
    return "\n".join(str(p) for p in parts)


def test_no_answer_or_explanation_is_shown_before_checking() -> None:
    at = _page()
    quiz = make_quiz(int(at.session_state["quiz_seed"]))
    shown = _shown_text(at)
    for q in quiz:
        assert q.prompt in shown
        assert q.explanation not in shown
    assert not at.success and not at.error
    assert at.metric[0].value == f"0 / {len(quiz)}"


# Words that state what is true instead of naming what is asked. A topic is on every student's phone
# and on the wall before the reveal, so it names the question, never its answer: "LayerNorm's gradient
# has no mean" would answer "what does ∂L/∂x sum to?", "RMSNorm does not centre" RMSNorm's output.
CLAIMS = frozenset(
    "not no never always still is are was does do has have defaults undoes gives fails works moves stays "
    "becomes overflows".split()
)


@pytest.mark.parametrize("seed", range(3))
def test_no_topic_states_its_answer(seed: int) -> None:
    for q in make_quiz(seed):
        claims = set(re.findall(r"[a-z]+", q.topic.lower())) & CLAIMS
        assert not claims, f"{q.key}: {q.topic!r} says {sorted(claims)}"
        assert q.options[q.answer] not in q.topic, q.key


def test_checking_scores_explains_and_try_again_starts_over() -> None:
    at = _page()
    quiz = make_quiz(int(at.session_state["quiz_seed"]))
    first, second = quiz[0], quiz[1]
    at.radio(key=f"quiz_{first.key}_1").set_value(first.options[first.answer]).run()
    at.button(key=f"check_{first.key}_1").click().run()
    wrong = (second.answer + 1) % len(second.options)
    at.radio(key=f"quiz_{second.key}_1").set_value(second.options[wrong]).run()
    at.button(key=f"check_{second.key}_1").click().run()
    assert not at.exception
    assert at.metric[0].value == f"1 / {len(quiz)}" and at.metric[1].value == f"2 / {len(quiz)}"
    assert any(first.explanation in s.body for s in at.success)
    assert any(second.explanation in e.body and second.options[second.answer] in e.body for e in at.error)
    assert at.radio(key=f"quiz_{first.key}_1").disabled
    seed = at.session_state["quiz_seed"]
    at.button(key="quiz_again").click().run()
    assert not at.exception
    assert at.session_state["quiz_seed"] != seed
    assert at.metric[0].value == f"0 / {len(quiz)}" and not at.success and not at.error


def _num(text: str) -> float:
    return float(text.split(" ")[0].replace("−", "-"))


@pytest.mark.parametrize("seed", range(12))
def test_the_under_the_hood_answers_are_the_frameworks_and_the_formulas(seed: int) -> None:
    """Each answer recomputed here from the formula itself, in plain NumPy, not by the core's function."""
    quiz = {q.key: q for q in make_quiz(seed)}
    q = quiz["stored-variance"]
    unbiased = q.prompt.startswith(("PyTorch", "TensorFlow fused"))
    assert _num(q.options[q.answer]) == pytest.approx(5 / 3 if unbiased else 1.25, rel=1e-3)
    q = quiz["keras-rms-scaling"]
    x = _vector(q.prompt)
    assert _num(q.options[q.answer]) == pytest.approx(1 / np.sqrt(np.var(x) + 1e-3), rel=1e-3)
    q = quiz["rms-dtype-eps"]
    a = _vector(q.prompt)[0]
    assert _num(q.options[q.answer]) == pytest.approx(a / np.sqrt(a * a + 2.0**-7), rel=1e-3)
    q = quiz["rms-sqrt-too-many"]
    x = _vector(q.prompt)
    np.testing.assert_allclose(_vector(q.options[q.answer]), x / np.sqrt(np.mean(x * x)), rtol=1e-3)
    q = quiz["one-pass"]
    offset, dtype = re.findall(r"\+ (\d+), in (\w+)\.", q.prompt)[0]
    assert (float(offset), dtype) in {(100.0, "float16"), (200.0, "bfloat16"), (20.0, "bfloat16")}
    one_pass = {"float16": 8.0, "bfloat16": -256.0 if offset == "200" else 2.0}[dtype]  # measured in NumPy
    assert _num(q.options[q.answer]) == one_pass
    q = quiz["shared-undo"]
    beta = re.findall(r"β = its μ = (\S+), in every feature", q.prompt)[0]
    assert q.options[q.answer] == f"{beta} for every token: β"
    assert _num(beta) == pytest.approx(float(np.mean(_undone_token(q))), rel=1e-3)
    q = quiz["gradient-sum"]
    assert q.options[q.answer] == "0 (to rounding)"


def _undone_token(q: Question) -> np.ndarray:
    """The recorded MiniLM input of the token a shared-undo question's link undoes, as float64."""
    from layernorm.data.activations import load_minilm_recording

    rec = load_minilm_recording()
    params = dict(urllib.parse.parse_qsl(q.link.partition("?")[2]))
    sentence = [str(v) for v in rec.sentences].index(params["ss_many_sentence"])
    site = [rec.site_label(i) for i in range(rec.n_sites)].index(params["ss_many_site"])
    position = int(params["ss_many_token"].split(" · ")[0])
    return np.asarray(rec.inputs[site][sentence, position], dtype=np.float64)


FUSED_TORCH = Path(__file__).resolve().parents[1] / "data" / "fused_torch_2_13.json"


@pytest.mark.parametrize("seed", range(12))
def test_the_fused_kernels_answer_is_what_pytorch_gives_in_training_mode(seed: int) -> None:
    q = next(q for q in make_quiz(seed) if q.key == "fused-affine")
    copies, value = re.findall(r"holds (\d+) copies of ([0-9e+.]+),", q.prompt)[0]
    # torch.nn.BatchNorm1d in training mode on torch.full((n, 1), value), PyTorch 2.13 CPU (recorded)
    records = json.loads(FUSED_TORCH.read_text())["records"]
    x = [float(value)] * int(copies)
    y = {
        r["capability"]: r["y"][0]
        for r in records
        if r["kernel"] == "batch_norm" and r["x"] == x and r["beta"] == 0.0 and r["gamma"] == 1.0
    }
    # the answer is the build with fused multiply-add; the build without it returns 0, as the explanation says
    assert y["AVX512"] == y["AVX2"] != 0 and y["DEFAULT"] == 0
    assert q.options[q.answer] == f"{g(y['AVX512'])}, not 0"
    assert "fused multiply-add" in q.prompt and "without them rounds x·s first and returns 0" in q.explanation
    assert "training mode" in q.prompt and "in training" in q.explanation
    assert "eval mode" in q.explanation.replace("\n", " ")  # the claim names the mode it holds in


def test_every_answers_link_names_a_page_of_the_app() -> None:
    """The quiz's "Open the page that shows it" goes to the link's own page, never Home by default."""
    from ui.navigation import page_file

    for seed in range(4):
        for q in make_quiz(seed):
            path = q.link.partition("?")[0]
            assert page_file(path).endswith(f"_{path.lstrip('/')}.py"), q.key
