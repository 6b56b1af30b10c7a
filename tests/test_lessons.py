"""Home's lesson links: each opens its page exactly as written, with no "the link's … is not …" note.

A lesson link is only worth projecting if it shows what its caption promises, so beyond "no message"
a few are checked on their numbers: the near-constant vector's x̂ collapses under ε, the [CLS] token's
outlier is feature 99, and the learning-rate lesson's rate is one only LayerNorm survives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from live_support import page_metrics
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.data.activations import load_minilm_recording
from layernorm.labs.training import run_sweep
from ui.lessons import LESSONS, Lesson
from ui.navigation import page_file

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _open(lesson: Lesson) -> AppTest:
    """A fresh session opened from the lesson's link (its page, its parameters)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in lesson.params.items():
        at.query_params[key] = value
    at.switch_page(lesson.page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.title for lesson in LESSONS])
def test_a_lesson_link_opens_as_written(lesson: Lesson) -> None:
    assert (ROOT / lesson.page).exists()
    at = _open(lesson)
    notes = [w.value for w in [*at.warning, *at.info] if "link" in str(w.value)]
    assert notes == [], notes  # every value is one the page offers, written as the page writes it
    for key, text in lesson.params.items():  # the URL keeps the text (a default value drops out)
        assert at.query_params.get(key, [text]) == [text] or at.query_params.get(key) == text, key


def test_the_home_page_shows_every_lesson_link() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    shown = [(link.proto.page, link.proto.label) for link in at.get("page_link")]
    for lesson in LESSONS:
        assert any(lesson.title == label for _, label in shown), lesson.title
    assert 6 <= len(LESSONS) <= 16  # one per teaching moment, few enough to scan on Home


def test_the_near_constant_lesson_shows_eps_taking_over() -> None:
    lesson = next(x for x in LESSONS if "ε takes over" in x.title)
    x = ln.parse_vector_text(lesson.params["typed"])
    steps = ln.layer_norm_steps(x, eps=ln.DEFAULT_EPS)
    assert float(steps.var) < ln.DEFAULT_EPS / 100  # σ² far below ε
    assert float(ln.variance(steps.x_hat)) < 0.01  # so x̂ is nowhere near unit variance
    at = _open(lesson)
    assert at.text_area(key="typed").value == lesson.params["typed"]


def test_the_cls_lesson_points_at_the_outlier_feature() -> None:
    lesson = next(x for x in LESSONS if "[CLS]" in x.title)
    rec = load_minilm_recording()
    s = [str(t) for t in rec.sentences].index(lesson.params["tok_sentence"])
    site = [rec.site_label(i) for i in range(rec.n_sites)].index(lesson.params["tok_site"])
    v = rec.token_vector(s, 0, site)
    assert rec.tokens[s, 0] == "[CLS]" and int(abs(v).argmax()) == 99 and abs(v[99]) > 100
    at = _open(lesson)
    assert at.selectbox(key="tok_site").value == site and at.selectbox(key="tok_index").value == 0


def test_the_learning_rate_lesson_is_one_only_layernorm_survives() -> None:
    lesson = next(x for x in LESSONS if "learning rate" in x.title.lower())
    res = run_sweep(depth=6, width=32, steps=100, init_gain=1.5, n_seeds=3)  # the page's defaults
    i = [f"{v:.3g}" for v in res.lrs].index(lesson.params["lr_pick"])
    none, layer = res.norms.index("none"), res.norms.index("layernorm")
    assert res.diverged[none, i].all() and not res.diverged[layer, i].any()


def test_the_hundred_layers_lesson_explodes_without_normalization_and_not_with_layernorm() -> None:
    lesson = next(x for x in LESSONS if "100 layers" in x.title)
    at = _open(lesson)
    shown = " ".join(str(e.value) for e in [*at.error, *at.warning, *at.info, *at.success, *at.markdown])
    assert "explod" in shown.lower(), shown[:500]
    at.radio(key="depth_norm").set_value("layernorm").run()
    assert not at.exception
    shown = " ".join(str(e.value) for e in [*at.error, *at.warning, *at.info, *at.success])
    assert "exploded" not in shown.lower() and "stable" in shown.lower(), shown[:500]


def _metric(at: AppTest, label: str) -> str:
    return next(value for name, value in page_metrics(at) if name == label)  # st.metric or a live readout


def test_the_batch_of_one_lesson_says_batchnorm_is_undefined() -> None:
    at = _open(next(x for x in LESSONS if "Batch size 1" in x.title))
    assert any("undefined for BatchNorm" in str(e.value) for e in at.error)
    assert _metric(at, "LayerNorm output std") == "1"


def test_the_framework_lesson_stores_the_biased_variance_in_keras() -> None:
    at = _open(next(x for x in LESSONS if "Keras 3 stores" in x.title))
    assert _metric(at, "running variance Keras 3 stores") == "1.25"
    stored = list(at.table[-1].value["stored running variance"])
    assert stored == ["1.6667", "1.6667", "1.25", "1.25"]  # PyTorch, TensorFlow fused, Keras 3, Flax


def test_the_estimators_lesson_differs_from_pytorch() -> None:
    at = _open(next(x for x in LESSONS if "÷d or" in x.title))
    assert float(_metric(at, "largest |difference|")) > 0.1


def test_the_rms_eps_lesson_shows_the_dtype_s_own_eps_halving_the_output() -> None:
    at = _open(next(x for x in LESSONS if "bfloat16's own ε" in x.title))
    rows = {str(name): str(row["output"]) for name, row in at.table[-1].value.iterrows()}
    assert rows["RMSNorm (PyTorch nn.RMSNorm, eps=None)"].startswith("0.99997616, ")
    assert rows["RMSNorm with bfloat16's own machine ε"].startswith("0.49236596, ")


def test_the_undo_lesson_gives_the_input_back() -> None:
    at = _open(next(x for x in LESSONS if "gives one token back" in x.title))
    gap = _metric(at, "largest |y − x|").replace("−", "-")
    assert float(gap) < 1e-9, gap


QUIZ_PAGES = {  # a link's path -> its page file
    "/" + p.stem.split("_", 1)[1]: f"pages/{p.name}"
    for p in (ROOT / "pages").glob("*.py")
    if not p.stem.startswith("0_")
}


def _quiz_links() -> list[tuple[str, str]]:
    from layernorm.labs.quiz import make_quiz

    return [(f"{q.key} (seed {seed})", q.link) for seed in (0, 1) for q in make_quiz(seed)]


@pytest.mark.parametrize(("name", "link"), _quiz_links(), ids=[n for n, _ in _quiz_links()])
def test_a_quiz_answers_link_opens_the_state_that_shows_it(name: str, link: str) -> None:
    """The quiz's "Open the page that shows it": its settings are ones the page offers, said nowhere."""
    import urllib.parse

    path, _, query = link.partition("?")
    params = dict(urllib.parse.parse_qsl(query))
    assert path in QUIZ_PAGES, link
    assert page_file(path) == QUIZ_PAGES[path], f"the quiz's page link for {path} would open another page"
    at = _open(Lesson(name, QUIZ_PAGES[path], params, ""))
    notes = [w.value for w in [*at.warning, *at.info] if "link" in str(w.value)]
    assert notes == [], (link, notes)
    for key, text in params.items():
        assert at.query_params.get(key, [text]) == [text] or at.query_params.get(key) == text, (link, key)


def test_the_fused_kernel_lesson_shows_242_27734375() -> None:
    at = _open(next(x for x in LESSONS if "fused kernel" in x.title))
    table = next(t.value for t in at.table if "exact y" in t.value.columns)
    assert list(table["fused · exact μ, σ² (float64)"])[:5] == ["242.27734375"] * 5
    assert list(table["exact y"])[:5] == ["0"] * 5
    stored = next(t.value for t in at.table if "b in float32" in t.value.index)
    assert stored.loc["float32 spacing at b"].iloc[0] == "1024"


def test_the_gradient_check_lesson_is_off_at_a_tiny_step_and_close_at_1e_5() -> None:
    lesson = next(x for x in LESSONS if "gradient check" in x.title)
    errors = {}
    for h in (lesson.params["grad_check_h"], "1e-5"):
        at = _open(Lesson(lesson.title, lesson.page, {**lesson.params, "grad_check_h": h}, ""))
        errors[h] = float(next(m.value for m in at.metric if m.label == "|difference|").replace("−", "-"))
    assert 1e-5 < errors["1e-13"] < 1e-3  # "off in the fourth digit" of a derivative of about 2
    assert errors["1e-5"] < 1e-9  # about ten digits


def test_the_fused_lesson_names_the_mode_its_pytorch_number_holds_in() -> None:
    lesson = next(x for x in LESSONS if "fused kernel" in x.title)
    assert "CPU BatchNorm does in training mode" in lesson.point  # eval mode uses running statistics


def test_the_quiz_lesson_counts_the_quizs_questions() -> None:
    from layernorm.labs.quiz import make_quiz

    lesson = next(x for x in LESSONS if x.page == "pages/16_quiz.py")
    n = len(make_quiz(0))
    assert lesson.title == f"The quiz: {n} confusions, a question each"
    assert lesson.point.startswith(f"{n} questions")
    assert "for every confusion" not in lesson.title + lesson.point
