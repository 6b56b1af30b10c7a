"""The sentences of Home and the step pages (1-5) hold for every value the controls and links allow.

Each fixed sentence that speaks of the numbers is checked against the core (``layernorm``) at the
controls' extremes: the constant preset (σ = 0), tiny and large vectors, ε from 1e-12 to 1, the γ/β
modes (shared, Undo, MiniLM's learned values) and the pages' own sliders. A few sentences that used
to be false (γ and β "undo the normalization" for every token, x̂ standardized per feature, LLaMA as a
LayerNorm model, drift as *the* reason normalization helps) are pinned by their text.
"""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from apptest_support import APP, FULL, HOME, MEAN, SS, STD, VAR, ok
from live_support import page_metrics
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.data.activations import load_minilm_recording
from layernorm.variants import variance_one_pass
from ui.lessons import LESSONS
from ui.settings import AFFINE_MODES, D_CHOICES, EPS_CHOICES
from ui.text import fmt
from ui.theme import COLORS, OKABE_ITO

UNDO = AFFINE_MODES[2]
TINY = "1e-170, -1e-170, 3e-170"  # σ² underflows to 0 while σ does not


def open_page(page: str, **query: str) -> AppTest:
    """A fresh session opened from a link to ``page`` with ``query``: no message about the link."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    ok(at.run())
    if page != HOME:
        ok(at.switch_page(page).run())
    notes = [str(w.value) for w in [*at.warning, *at.info] if "link" in str(w.value)]
    assert notes == [], notes
    return at


def words(at: AppTest) -> str:
    """Every sentence on the page: markdown, captions, alerts, metric help and the question box."""
    parts = [*at.markdown, *at.caption, *at.info, *at.success, *at.warning, *at.error]
    text = " ".join(str(e.value) for e in parts)
    helps = " ".join(str(m.proto.help) for m in at.metric)
    radios = " ".join(" ".join(map(str, r.options)) for r in at.radio)
    return f"{text} {helps} {radios}"


def metric(at: AppTest, label: str) -> str:
    shown = page_metrics(at)  # st.metric and live readouts', in page order
    return next(value for name, value in shown if name == label)


def number(text: str) -> float:
    return float(text.replace("−", "-"))


def xhat_variance(x: np.ndarray, eps: float) -> float:
    return float(ln.variance(ln.layer_norm_steps(x, eps=eps).x_hat))


# ---------------------------------------------------------------------------- the named false claims


def test_home_names_layernorm_models_and_what_is_known_about_why_it_helps() -> None:
    at = open_page(HOME)
    text = words(at)
    assert "LLaMA-7B" not in text and "4096 in LLaMA" not in text  # LLaMA uses RMSNorm
    assert "1600 in GPT-2 XL" in text and "LLaMA and many newer models use RMSNorm" in text
    assert "As training goes on those numbers drift" not in text
    assert "“internal covariate shift”), is disputed" in text
    assert "larger learning rates" in text
    labels = [str(link.proto.label) for link in at.get("page_link")]
    assert "4 · Scale & shift — γ and β give the freedom back" not in labels
    assert "4 · Scale & shift — the learned γ and β, shared by every token" in labels


def test_scale_shift_no_longer_says_gamma_beta_undo_the_normalization_for_every_token() -> None:
    at = open_page(SS)
    text = words(at)
    assert "never limits what the network can represent" not in text
    assert "even all the way back to the original vector" not in text
    assert "each token's own mean and spread are gone from LayerNorm's output" in text
    assert "gives back the one token they were taken from, not every token at once" in text
    assert at.button(key="ss_undo").label == "Undo for this vector: γ = σ, β = μ"
    undo = next(lesson for lesson in LESSONS if lesson.params.get("affine_mode") == UNDO)
    assert undo.title == "γ = σ, β = μ gives one token back"
    assert "loses nothing it cannot learn back" not in undo.point
    assert "no one choice gives them all back" in undo.point


def test_one_gamma_beta_cannot_give_back_two_real_tokens() -> None:
    """The correction's ground: Undo set from one MiniLM token leaves another token far from itself."""
    rec = load_minilm_recording()
    a, b = rec.token_vector(0, 1, 2), rec.token_vector(0, 2, 2)
    eps = float(rec.eps[2])
    sa = ln.layer_norm_steps(a, eps=eps)
    gamma, beta = np.full(a.size, float(sa.sigma)), np.full(a.size, float(sa.mu))
    assert ln.max_abs_diff(ln.layer_norm(a, gamma, beta, eps=eps), a) < 1e-9 * float(sa.sigma)
    sb = ln.layer_norm_steps(b, eps=eps)
    assert ln.max_abs_diff(ln.layer_norm(b, gamma, beta, eps=eps), b) > 0.1 * float(sb.sigma)


def test_scale_shift_question_is_about_one_tokens_features() -> None:
    at = open_page(SS)
    question = " ".join(str(m.value) for m in at.markdown if "Predict, then check" in str(m.value))
    assert "feature i to have mean 3.5" not in question and "mean of 1.5" in question
    assert "across a token's features (take ε ≪ σ²)" in question
    assert list(at.radio(key="ss_q_guess").options) == ["γ = 1.5, β = 2", "γ = 2, β = 1.5", "γ = 1, β = 0"]


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"preset": "scaled (σ = 10)", "d": "2", "eps": "1e-12"},
        {"preset": "one large outlier", "d": "4096", "seed": "9999", "eps": "1e+00"},
        {"preset": "constant", "eps": "1e+00"},
    ],
)
def test_scale_shift_answer_sets_the_token_mean_and_spread_as_the_reveal_says(query: dict[str, str]) -> None:
    """γ = 2, β = 1.5: y's mean is 1.5 and its std 2·√(σ²/(σ² + ε)), the reveal's words, on the page too."""
    at = open_page(SS, gamma="2", beta="1.5", **query)
    x = ln.make_preset(
        query.get("preset", "standard normal"), int(query.get("d", 8)), int(query.get("seed", 0))
    )
    eps = float(query.get("eps", 1e-5))
    s = ln.layer_norm_steps(x, np.full(x.size, 2.0), np.full(x.size, 1.5), eps=eps)
    assert float(ln.mean(s.y)) == pytest.approx(1.5, abs=1e-12)
    assert float(ln.std(s.y)) == pytest.approx(2 * float(s.x_hat_var_expected) ** 0.5, rel=1e-9, abs=1e-15)
    assert number(metric(at, "mean of y")) == pytest.approx(1.5)
    assert metric(at, "standard deviation of y") == fmt(float(ln.std(s.y)))


def test_lesson_captions_hold_on_their_pages() -> None:
    near = next(lesson for lesson in LESSONS if "ε takes over" in lesson.title)
    assert near.params["eps"] == "1e-05"  # the caption names ε = 1e-5: the link sets it
    x = ln.parse_vector_text(near.params["typed"])
    assert 0.5e-8 < float(ln.variance(x)) < 2e-8  # "about 1e-8"
    cls = next(lesson for lesson in LESSONS if "[CLS]" in lesson.title)
    rec = load_minilm_recording()
    s = [str(t) for t in rec.sentences].index(cls.params["tok_sentence"])
    site = [rec.site_label(i) for i in range(rec.n_sites)].index(cls.params["tok_site"])
    sq = np.asarray(ln.layer_norm_steps(rec.token_vector(s, 0, site)).squared_deviations)
    assert sq[99] / sq.sum() > 0.99  # "over 99% of σ²"

    f16 = next(lesson for lesson in LESSONS if lesson.title.startswith("float16"))
    x = ln.parse_vector_text(f16.params["typed"]) + float(f16.params["prec_offset"])
    one = ln.layer_norm_in_dtype(x, dtype="float16", method="one_pass")
    two = ln.layer_norm_in_dtype(x, dtype="float16", method="two_pass")
    assert (float(one.var[0]), float(two.var[0]), float(ln.variance(x))) == (8.0, 1.25, 1.25)
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in f16.params.items():
        at.query_params[k] = v
    ok(at.switch_page(f16.page).run())
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "one-pass: σ² = 8" in shown and "two-pass: σ² = 1.25" in shown and "Exact: σ² = 1.25" in shown


# ---------------------------------------------------------------------------- 1 · Mean


def test_mean_outlier_notice_holds_for_every_seed_up_to_d_8() -> None:
    """ "its feature at 40 (c = 0) adds 40/d to μ …; for d up to 8 every other feature lands below zero"."""
    for d in [v for v in D_CHOICES if v <= 8]:
        xs = np.stack([ln.make_preset("one large outlier", d, seed) for seed in range(10000)])
        centred = ln.layer_norm_steps(xs).centered  # row by row, each the page's x − μ (the core is exact)
        assert (xs[:, d // 3] == 40.0).all()
        others = np.delete(centred, d // 3, axis=1)
        assert (others < 0).all(), (d, np.flatnonzero((others >= 0).any(axis=1)))


def test_mean_shift_moves_mu_by_c_and_leaves_x_minus_mu() -> None:
    at = open_page(MEAN, src="Type numbers", typed="40000, 40001, 40002, 40003")
    for c in (-10.0, 10.0):
        ok(at.slider(key="mean_shift").set_value(c).run())
        assert at.slider(key="mean_shift").value == c
        assert metric(at, "mean of x − μ") == "0"  # balances at zero, to rounding
        assert number(metric(at, "μ (mean)")) == 40001.5 + c
    assert "Move c: μ moves by c, and x − μ stays the same up to float64 rounding" in words(at)


# ---------------------------------------------------------------------------- 2 · Variance


def test_variance_sentences_at_the_extremes() -> None:
    at = open_page(VAR, preset="scaled (σ = 10)", d="4096", seed="9999")
    x = ln.make_preset("scaled (σ = 10)", 4096, 9999)
    for a in (0.1, 10.0):  # "σ² is multiplied by a², σ by a"
        ok(at.select_slider(key="var_scale").set_value(a).run())
        assert number(metric(at, "σ² (÷d, population)")) == pytest.approx(
            a * a * float(ln.variance(x)), rel=1e-3
        )
    for d, more in ((4, 1 / 3), (768, 0.0013)):  # "a third more at d = 4, only 0.13% more at d = 768"
        y = ln.make_preset("standard normal", d, 0)
        assert float(ln.variance(y, ddof=1)) / float(ln.variance(y)) - 1 == pytest.approx(more, rel=3e-3)
    text = words(at)
    assert "vanishes for d = 768" not in text and "ends up with variance 1 " not in text
    assert "σ²/(σ² + ε): just under 1 while σ² is far above ε" in text


@pytest.mark.parametrize(("typed", "shown"), [(TINY, True), ("1, 2, 3, 4", False)])
def test_variance_underflow_caption_appears_exactly_when_sigma2_underflows(typed: str, shown: bool) -> None:
    s = ln.layer_norm_steps(ln.parse_vector_text(typed))
    assert (float(s.var) == 0 and float(s.sigma) > 0) is shown
    for page in (VAR, FULL):
        at = open_page(page, src="Type numbers", typed=typed)
        assert (
            any(
                "below the smallest positive float64" in str(c.value)
                or "smaller than the smallest" in str(c.value)
                for c in at.caption
            )
            is shown
        )
    assert fmt(float(np.nextafter(0.0, 1.0)), 1) == "5e−324"  # "about 5e−324"


def test_the_offset_notice_two_pass_holds_on_where_one_pass_fails() -> None:
    """ "once it is large next to the spread, the one-pass float32 formula loses the variance …, while the
    two-pass float64 value holds on far longer" — for the page's offsets and very different vectors."""
    for x in (
        ln.make_preset("standard normal", 8, 0),
        ln.make_preset("scaled (σ = 10)", 768, 3),
        np.array([1.0, 2.0]),
    ):
        exact = float(ln.variance(x))
        lost = [
            o
            for o in (1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)
            if abs(float(variance_one_pass(x + o, dtype=np.float32)) - exact) > 0.5 * exact
        ]
        assert lost, "the one-pass formula loses the variance somewhere on the slider"
        assert abs(float(ln.variance(x + lost[0])) - exact) < 1e-6 * exact


# ---------------------------------------------------------------------------- 3 · Standardize


@pytest.mark.parametrize(
    ("query", "x"),
    [
        ({"preset": "constant", "eps": "1e-12"}, ln.make_preset("constant", 8, 0)),
        ({"preset": "constant", "eps": "1e+00"}, ln.make_preset("constant", 8, 0)),
        ({"eps": "1e+00"}, ln.make_preset("standard normal", 8, 0)),
        ({"src": "Type numbers", "typed": TINY}, ln.parse_vector_text(TINY)),
    ],
)
def test_standardize_variance_is_sigma2_over_sigma2_plus_eps(query: dict[str, str], x: np.ndarray) -> None:
    """ "x̂ has mean 0 (up to rounding) and variance σ²/(σ² + ε) …, and 0 for a constant vector" """
    at = open_page(STD, **query)
    eps = float(query.get("eps", 1e-5))
    s = ln.layer_norm_steps(x, eps=eps)
    assert metric(at, "mean of x̂") == "0"
    assert xhat_variance(x, eps) == pytest.approx(float(s.var) / (float(s.var) + eps), abs=1e-15)
    assert number(metric(at, "variance of x̂")) == pytest.approx(xhat_variance(x, eps), abs=1e-4)
    if float(s.sigma) == 0:
        assert metric(at, "variance of x̂") == "0" and (s.x_hat == 0).all()  # exactly 0, thanks to ε
    text = words(at)
    assert "variance just below 1: exactly" not in text and "x̂ still has unit variance" not in text


def test_standardize_question_numbers() -> None:
    assert f"{1e-5**0.5:.4f}" == "0.0032"  # "the divisor is √ε ≈ 0.0032"
    assert (ln.layer_norm_steps(np.full(5, 3.0), eps=1e-5).x_hat == 0).all()


# ---------------------------------------------------------------------------- 4 · Scale & shift


def _hue(colour: str) -> float:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360


def test_scale_shift_notice_colours_and_identity() -> None:
    """ "With γ = 1 and β = 0, y is exactly x̂: each feature's vermillion y is as tall as its green x̂" """
    assert COLORS["x_hat"] == OKABE_ITO["bluish_green"]
    assert abs(_hue(COLORS["y"]) - _hue(OKABE_ITO["vermillion"])) < 5
    assert abs(_hue(COLORS["mu"]) - _hue(OKABE_ITO["orange"])) < 5  # Variance: "the dashed orange line"
    rec = load_minilm_recording()
    for x in (
        ln.make_preset("one large outlier", 4096, 9999),
        rec.token_vector(0, 0, 0),
        np.array([1e-170, 0]),
    ):
        s = ln.layer_norm_steps(x, np.ones(x.size), np.zeros(x.size), eps=1e-12)
        np.testing.assert_array_equal(s.y, s.x_hat)


@pytest.mark.parametrize(
    "query",
    [
        {"preset": "constant"},
        {"preset": "scaled (σ = 10)", "d": "4096", "eps": "1e+00"},
        {"src": "Type numbers", "typed": "40000, 40001, 40002, 40003", "eps": "1e-12"},
    ],
)
def test_undo_caption_names_this_vectors_statistics(query: dict[str, str]) -> None:
    at = open_page(SS, affine_mode=UNDO, **query)
    if "typed" in query:
        x = ln.parse_vector_text(query["typed"])
    else:
        x = ln.make_preset(query["preset"], int(query.get("d", 8)), 0)
    s = ln.layer_norm_steps(x, eps=float(query.get("eps", 1e-5)))
    (caption,) = [str(c.value) for c in at.caption if "this vector's own statistics" in str(c.value)]
    assert caption.startswith(f"γ = σ = {fmt(float(s.sigma))} and β = μ = ")
    assert number(caption.split("β = μ = ")[1].split(":")[0]) == pytest.approx(float(s.mu), rel=1e-3)
    if query.get("preset") == "constant":  # σ = 0: γ = 0 and y = β = μ = x, exactly
        assert metric(at, "largest |y − x|") == "0"


def test_undo_caption_only_in_undo_mode_and_minilm_note() -> None:
    at = open_page(SS)
    assert not [c for c in at.caption if "this vector's own statistics" in str(c.value)]
    at = open_page(
        SS, src="Real token (MiniLM)", tok_site="Layer 5 · after FFN", affine_mode="MiniLM's learned γ, β"
    )
    (note,) = [str(i.value) for i in at.info if "MiniLM's learned γ and β" in str(i.value)]
    assert "far from 1 and 0" not in note  # γ of this site runs up to 0.79, its β crosses 0
    rec = load_minilm_recording()
    assert not np.array_equal(rec.gamma[12], np.ones(384)) and np.ptp(rec.gamma[12]) > 0


# ---------------------------------------------------------------------------- 5 · Full formula and sidebar


def test_full_formula_notice_and_minilm_match() -> None:
    at = open_page(FULL, preset="constant", eps="1e+00")
    text = words(at)
    assert "variance ≈ 1 whatever x was" not in text
    assert "close to 1 unless ε is near σ² or above it" in text
    assert xhat_variance(ln.make_preset("constant", 8, 0), 1.0) == 0.0
    eps_12 = EPS_CHOICES[0]
    at = open_page(FULL, src="Real token (MiniLM)", eps=f"{eps_12:.0e}", affine_mode="MiniLM's learned γ, β")
    assert any("agree to" in str(s.value) for s in at.success)


def test_sidebar_token_caption_and_new_draw_help_hold() -> None:
    """ "Its largest features are several times the typical size"; "New draw" changes only random presets."""
    rec = load_minilm_recording()
    for site in range(rec.n_sites):
        for s in range(rec.n_sentences):
            for t in rec.real_token_indices(s).tolist():
                v = np.abs(rec.token_vector(s, t, site))
                assert v.max() > 3 * np.median(v), (site, s, t)
    for name in ("constant", "one-hot [1, 0, 0, 0]"):
        np.testing.assert_array_equal(ln.make_preset(name, 8, 0), ln.make_preset(name, 8, 1))
    at = open_page(MEAN)
    assert at.button(key="reseed").proto.help.startswith("New random numbers for the random presets")
    assert any(
        "several times the typical size" in str(c.value)
        for c in open_page(MEAN, src="Real token (MiniLM)").caption
    )


def test_the_mean_page_no_longer_says_exactly_what_holds_only_to_rounding() -> None:
    mean = words(open_page(MEAN))
    assert "balances exactly at zero" not in mean and "does not change at all" not in mean
    assert "grows by exactly 5" not in mean
