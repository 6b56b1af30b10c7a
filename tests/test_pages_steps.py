"""Pages 0-5 through AppTest: every input source, preset and size renders; each control moves exactly
the numbers it should, compared with the core (``layernorm``) formatted by ``ui.text`` (``fmt`` with
the digits ``digits_to_separate`` chooses, ``zero_metric`` for results that are 0 to rounding).

``st.cache_data`` is cleared for every test by the autouse fixture in ``tests/conftest.py``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import variance_expected
from apptest_support import APP, FULL, HOME, MEAN, SS, STD, STEP_FILES, VAR, ok
from chart_specs import charts
from live_support import live_readouts, page_metric_elements, page_metrics, page_tex
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.data.activations import load_minilm_recording
from layernorm.variants import variance_one_pass
from ui.settings import AFFINE_MODES
from ui.text import digits_to_separate, fmt, rounding_noise, tex_num, zero_metric

PAGES = [HOME, *STEP_FILES.values()]
EPS = 1e-5
DEFAULT_X = ln.make_preset("standard normal", 8, 0)  # the sidebar's defaults


# ---------------------------------------------------------------------------- harness


@pytest.fixture
def steady_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run like a server that has left Streamlit's legacy "pages/ directory" mode.

    A server leaves that mode for good on its first script run (app.py's st.navigation, or
    ui.shell.ensure_app_shell for a deep link). AppTest resets the flag before *every* run, so
    every run after switch_page starts with ensure_app_shell's st.rerun(), and that rerun
    swallows an ``if st.button(...)`` click (callbacks survive, plain button values do not).
    Tests of such buttons use this fixture; everything else runs stock AppTest.
    """
    original = PagesManager.__init__

    def init(self: PagesManager, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    yield


@pytest.fixture
def open_app() -> Callable[..., AppTest]:
    def _open(page: str = HOME, query: dict[str, str] | None = None) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=60)
        for k, v in (query or {}).items():
            at.query_params[k] = v
        ok(at.run())
        if page != HOME:
            ok(at.switch_page(page).run())
        return at

    return _open


# Scale & shift's section of real tokens, below the step's own numbers (test_page_scale_shift_tokens.py)
TOKEN_SECTION = ("token ", "every other token", "shared γ = σ, β = μ")


def metrics(at: AppTest) -> list[tuple[str, str]]:
    """The step's own numbers: st.metric and live readouts', in page order."""
    return [(name, value) for name, value in page_metrics(at) if not name.startswith(TOKEN_SECTION)]


def metric(at: AppTest, label: str, nth: int = 0) -> str:
    values = [value for name, value in metrics(at) if name == label]
    assert len(values) > nth, f"no metric {label!r} #{nth}: {metrics(at)}"
    return values[nth]


def latex(at: AppTest, i: int = 0) -> str:
    """The i-th formula without Streamlit's ``$$`` wrapper."""
    return page_tex(at)[i]  # st.latex and live readouts', in page order


def texts(elements: object) -> list[str]:
    return [e.value for e in elements]  # type: ignore[attr-defined]


def page_warning(at: AppTest) -> list[str]:
    return [w for w in texts(at.main.warning) if w.startswith("Your input has a problem")]


# ---------------------------------------------------------------------------- expected numbers


def expected_metrics(
    page: str,
    x: np.ndarray,
    *,
    eps: float = EPS,
    gamma: np.ndarray | float = 1.0,
    beta: np.ndarray | float = 0.0,
    shift: float = 0.0,
    scale: float = 1.0,
    offset: float = 1e4,
    spread: float = 1e-3,
) -> list[tuple[str, str]]:
    """Every metric of ``page``, in order, computed with the core and formatted with ``ui.text``."""
    d = x.size
    if page == MEAN:
        s = ln.layer_norm_steps(x + shift, eps=eps)
        return [
            ("d (features)", str(d)),
            ("μ (mean)", fmt(float(s.mu), mu_digits(s))),
            ("mean of x − μ", zero_metric(float(ln.mean(s.centered)), s.centered)["value"]),
        ]
    if page == VAR:
        readouts: Any = variance_expected.expected(x, eps, scale)["readouts"]
        passes = variance_expected.passes_expected(x, scale, offset)
        return [*(m for _, _, shown in readouts for m in shown), *((label, v) for label, v, _ in passes)]
    if page == STD:
        s = ln.layer_norm_steps(x, eps=eps)
        near = ln.layer_norm_steps(3.0 + spread * ln.make_preset("standard normal", 8, seed=1), eps=eps)
        xhat_var, expected = float(ln.variance(s.x_hat)), float(s.var / (s.var + eps))
        vd = digits_to_separate([xhat_var, expected], 6, against=[1.0], same_within=rounding_noise(1.0))
        return [
            ("ε", f"{eps:.0e}"),
            ("mean of x̂", zero_metric(float(ln.mean(s.x_hat)), s.x_hat)["value"]),
            ("variance of x̂", fmt(xhat_var, vd)),
            ("σ² / (σ² + ε)", fmt(expected, vd)),
            ("σ² of this vector", fmt(float(near.var), digits_to_separate([float(near.var)], against=[eps]))),
            ("ε", f"{eps:.0e}"),
            ("variance of x̂", near_xhat_variance(near)),
        ]
    if page == SS:
        g = np.broadcast_to(np.asarray(gamma, dtype=float), x.shape)
        b = np.broadcast_to(np.asarray(beta, dtype=float), x.shape)
        s = ln.layer_norm_steps(x, g, b, eps=eps)
        return [
            ("mean of y", mean_of_y(s)),
            ("standard deviation of y", fmt(float(ln.variance(s.y)) ** 0.5)),
            ("largest |y − x|", zero_metric(ln.max_abs_diff(s.y, s.x), [s.x, s.y])["value"]),
        ]
    assert page in (FULL, HOME)  # Home shows the full formula's numbers for the sidebar's vector
    s = ln.layer_norm_steps(x, eps=eps)
    var = float(s.var)
    return [
        ("μ", fmt(float(s.mu), mu_digits(s))),
        ("σ²", fmt(var, digits_to_separate([var], against=[eps], same_within=rounding_noise(var)))),
        ("√(σ² + ε)", fmt(float(s.std))),
        ("d", str(d)),
    ]


def mu_digits(s: ln.LayerNormSteps) -> int:
    """The digits at which μ prints differently from every x it differs from (not just 4)."""
    return digits_to_separate([float(s.mu)], against=s.x, same_within=rounding_noise(s.x))


def mean_of_y(s: ln.LayerNormSteps) -> str:
    """Scale & shift's "mean of y": "0" (to rounding) when only rounding is left, else told apart from y."""
    m = float(ln.mean(s.y))
    digits = digits_to_separate([m], against=s.y, same_within=rounding_noise(s.y))
    return str(zero_metric(m, s.y, digits)["value"])


def near_xhat_variance(near: ln.LayerNormSteps) -> str:
    v = float(ln.variance(near.x_hat))
    return fmt(v, digits_to_separate([v], against=[1.0], same_within=rounding_noise(1.0)))


def two_pass_one_pass(xs: np.ndarray, offset: float) -> tuple[float, float]:
    return float(ln.variance(xs + offset)), float(variance_one_pass(xs + offset, dtype=np.float32))


def minilm_token(sentence: int = 0, token: int = 0, site: int = 0) -> tuple[np.ndarray, object]:
    rec = load_minilm_recording()
    return rec.token_vector(sentence, token, site), rec


# ---------------------------------------------------------------------------- every page renders


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_with_defaults(open_app: Callable[..., AppTest], page: str) -> None:
    at = open_app(page)
    assert metrics(at) == expected_metrics(page, DEFAULT_X)
    assert at.selectbox(key="src").value == "Preset"  # the shared sidebar is drawn on every page
    assert not at.error and not at.warning
    if page != HOME:
        assert charts(at), "every step page draws at least one chart"
        assert len(at.expander) >= 1  # the core's own source
    else:
        assert at.title[0].value == "LayerNorm Lab"


SIZES_AND_SEEDS = [(2, 0), (768, 0), (4096, 123), (2, 9999)]


@pytest.mark.parametrize("page", PAGES)
def test_every_preset_size_and_seed(open_app: Callable[..., AppTest], page: str) -> None:
    """Every preset at every (size, seed) of SIZES_AND_SEEDS, across the step pages: each page takes
    one of the four for each preset, in turn, so the six pages together meet every pair."""
    at = open_app(page)
    n = PAGES.index(page)
    for k, preset in enumerate(ln.PRESETS):
        for d, seed in (SIZES_AND_SEEDS[(k + n) % len(SIZES_AND_SEEDS)],):
            # stage all three widgets, then one run
            at.selectbox(key="preset").set_value(preset)
            at.select_slider(key="d").set_value(d)
            at.number_input(key="seed").set_value(seed)
            ok(at.run())
            assert at.selectbox(key="preset").value == preset
            assert at.select_slider(key="d").value == d and at.number_input(key="seed").value == seed
            x = ln.make_preset(preset, d, seed)
            assert metrics(at) == expected_metrics(page, x), (preset, d, seed)
            assert not at.error and not at.warning


def _typed(at: AppTest, text: str) -> AppTest:
    ok(at.selectbox(key="src").set_value("Type numbers").run())
    return ok(at.text_area(key="typed").set_value(text).run())


def _npy(values: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, values)
    return buf.getvalue()


@pytest.mark.parametrize("page", PAGES)
def test_every_input_source(open_app: Callable[..., AppTest], page: str) -> None:
    from ui.text import LABEL_LIMIT, MESSAGE_LIMIT, plain  # messages and labels are shown as plain text

    at = open_app(page)

    _typed(at, "3, -1.5, 2e1, 0.25")
    assert metrics(at) == expected_metrics(page, np.array([3.0, -1.5, 20.0, 0.25]))
    assert not at.error and not page_warning(at)

    ok(at.selectbox(key="src").set_value("Edit a table").run())
    assert metrics(at) == expected_metrics(page, np.array([1.0, 2.0, 3.0, 4.0]))  # the table's seed
    at.session_state["table"] = {
        "edited_rows": {0: {"x": 5.0}},
        "added_rows": [{"x": -10.0}],
        "deleted_rows": [1],
    }
    ok(at.run())
    assert metrics(at) == expected_metrics(page, np.array([5.0, 3.0, 4.0, -10.0]))
    assert not at.error

    ok(at.selectbox(key="src").set_value("Upload a file").run())  # no file yet: a message, no exception
    assert texts(at.sidebar.error) == [
        plain("Choose a file: a .csv with one row or one column of numbers, or a .npy vector.", MESSAGE_LIMIT)
    ]
    assert page_warning(at) == [
        "Your input has a problem (see the sidebar), so the pages show: "
        + plain("table (last valid input)", LABEL_LIMIT)
        + "."
    ]
    assert metrics(at) == expected_metrics(page, np.array([5.0, 3.0, 4.0, -10.0]))  # nothing lost
    up = np.array([0.5, -2.0, 7.25, 1e-3, 4.0])
    ok(at.file_uploader(key="upload").upload("v.npy", _npy(up)).run())
    assert metrics(at) == expected_metrics(page, up)
    assert not at.error and not page_warning(at)

    ok(at.selectbox(key="src").set_value("Real token (MiniLM)").run())
    x, _ = minilm_token()
    assert x.size == 384
    assert metrics(at) == expected_metrics(page, x)
    assert len(at.radio(key="affine_mode").options) == 4  # MiniLM's own γ, β become available

    ok(at.selectbox(key="src").set_value("Preset").run())
    assert metrics(at) == expected_metrics(page, DEFAULT_X)


def test_real_token_choices_change_the_vector(open_app: Callable[..., AppTest]) -> None:
    at = open_app(FULL)
    ok(at.selectbox(key="src").set_value("Real token (MiniLM)").run())
    rec = load_minilm_recording()
    sentence, site = rec.n_sentences - 1, rec.n_sites - 1
    token = int(rec.real_token_indices(sentence)[-1])
    ok(at.selectbox(key="tok_sentence").set_value(sentence).run())
    ok(at.selectbox(key="tok_index").set_value(token).run())
    ok(at.selectbox(key="tok_site").set_value(site).run())
    assert metrics(at) == expected_metrics(FULL, rec.token_vector(sentence, token, site))


# ---------------------------------------------------------------------------- typed input


BAD_TYPED = [
    ("1, 2, abc", "'abc' (item 3, line 1) is not a number"),
    ("", "The typed vector is empty"),
    ("nan", "'nan' (item 1, line 1) is not a finite number"),
    (", ".join(["1"] * 5000), "The typed vector has 5000 values; the lab handles at most 4096"),
]
STEP_PAGES = list(STEP_FILES.values())


# Each bad text on two of the five step pages, in turn, so every page meets at least one
# (the sidebar that reads them is the same on every page).
@pytest.mark.parametrize(
    ("page", "text", "error_part"),
    [(STEP_PAGES[(k + j) % len(STEP_PAGES)], *bad) for k, bad in enumerate(BAD_TYPED) for j in (0, 2)],
)
def test_bad_typed_input_keeps_the_last_valid_vector(
    open_app: Callable[..., AppTest], page: str, text: str, error_part: str
) -> None:
    from ui.text import LABEL_LIMIT, MESSAGE_LIMIT, plain  # messages and labels are shown as plain text

    at = _typed(open_app(page), "[4, −2, 0.5e1]")  # brackets, typographic minus, e-notation
    good = np.array([4.0, -2.0, 5.0])
    assert metrics(at) == expected_metrics(page, good)
    ok(at.text_area(key="typed").set_value(text).run())
    (err,) = texts(at.sidebar.error)
    assert plain(error_part, MESSAGE_LIMIT) in err
    assert page_warning(at) == [
        "Your input has a problem (see the sidebar), so the pages show: "
        + plain("typed vector (last valid input)", LABEL_LIMIT)
        + "."
    ]
    assert metrics(at) == expected_metrics(page, good)
    assert at.text_area(key="typed").value == text  # what the user typed is still there to fix
    ok(at.text_area(key="typed").set_value("1 2\n3").run())
    assert not at.error and not page_warning(at)
    assert metrics(at) == expected_metrics(page, np.array([1.0, 2.0, 3.0]))


def test_first_input_invalid_falls_back_to_default(open_app: Callable[..., AppTest]) -> None:
    at = open_app(MEAN)
    ok(at.selectbox(key="src").set_value("Type numbers").run())
    assert at.text_area(key="typed").value == "1, 2, 3, 4"
    assert metrics(at) == expected_metrics(MEAN, np.array([1.0, 2.0, 3.0, 4.0]))


def test_non_numeric_table_cell_is_reported(open_app: Callable[..., AppTest]) -> None:
    from ui.text import MESSAGE_LIMIT, plain  # messages that quote a cell are shown as plain text

    at = open_app(MEAN)
    ok(at.selectbox(key="src").set_value("Edit a table").run())
    at.session_state["table"] = {"edited_rows": {2: {"x": "zz"}}, "added_rows": [], "deleted_rows": []}
    ok(at.run())
    assert texts(at.sidebar.error) == [  # text cells: the message quotes what was typed
        plain(
            "Row 3 of the table is 'zz', which is not a number. "
            "Write one number per cell, e.g. 2.5, -3 or 1e-8.",
            MESSAGE_LIMIT,
        )
    ]
    assert page_warning(at)
    assert metrics(at) == expected_metrics(MEAN, np.array([1.0, 2.0, 3.0, 4.0]))
    at.session_state["table"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": [0, 1, 2, 3]}
    ok(at.run())
    assert texts(at.sidebar.error) == [plain("The table is empty: enter at least one number.", MESSAGE_LIMIT)]


def test_upload_bad_files_give_messages(open_app: Callable[..., AppTest]) -> None:
    at = open_app(STD)
    ok(at.selectbox(key="src").set_value("Upload a file").run())
    ok(at.file_uploader(key="upload").set_value(("m.npy", _npy(np.ones((2, 2))), "application/x-npy")).run())
    (err,) = texts(at.sidebar.error)
    assert "2 × 2 array" in err
    ok(at.file_uploader(key="upload").set_value(("a.csv", b"1,2\n3,x\n", "text/csv")).run())
    (err,) = texts(at.sidebar.error)
    assert "\\'x\\'" in err  # quoted as plain text: \'x\'
    assert metrics(at) == expected_metrics(STD, DEFAULT_X)  # the last valid vector


@pytest.mark.parametrize(
    ("data", "values"),
    [
        (b"0.5\n1.5\n2.5\n", [0.5, 1.5, 2.5]),
        (b"1\n2\n3\n4\n", [1.0, 2.0, 3.0, 4.0]),
        (b"1\n2\n3\n10\n", [1.0, 2.0, 3.0, 10.0]),
        (b"12\n13\n", [12.0, 13.0]),
        (b"x\n-1\n2.5e1\n", [-1.0, 25.0]),  # a header line is skipped
        (b"1;2;3\n", [1.0, 2.0, 3.0]),
    ],
)
def test_upload_csv(open_app: Callable[..., AppTest], data: bytes, values: list[float]) -> None:
    # Regression: read_csv_vector let csv.Sniffer guess the delimiter from the digits of a
    # one-column file ("0.5\n1.5\n2.5" became [0, 1, 2], "1\n2\n3\n4" lost its first row,
    # "1\n2\n3\n10" was refused), and the Mean page silently showed the wrong μ.
    at = open_app(MEAN)
    ok(at.selectbox(key="src").set_value("Upload a file").run())
    ok(at.file_uploader(key="upload").upload("col.csv", data, "text/csv").run())
    assert not at.error and not page_warning(at)
    assert metrics(at) == expected_metrics(MEAN, np.array(values))


# ---------------------------------------------------------------------------- 1 · Mean


@pytest.mark.parametrize("c", [-10.0, -0.5, 2.5, 10.0])
def test_mean_shift_moves_mu_by_exactly_c(open_app: Callable[..., AppTest], c: float) -> None:
    at = open_app(MEAN)
    ok(at.slider(key="mean_shift").set_value(c).run())
    assert at.slider(key="mean_shift").value == c
    mu0, mu_c = float(ln.mean(DEFAULT_X)), float(ln.mean(DEFAULT_X + c))
    assert mu_c - mu0 == pytest.approx(c, abs=1e-12)
    assert metrics(at) == expected_metrics(MEAN, DEFAULT_X, shift=c)
    mu_metric = next(m for m in live_readouts(at)[0]["metrics"] if m["label"] == "μ (mean)")
    digits = mu_digits(ln.layer_norm_steps(DEFAULT_X + c))
    assert mu_metric["value"] == fmt(mu_c, digits) and mu_metric["delta"] == fmt(c)
    assert latex(at).endswith(f"= {tex_num(mu_c, digits)}")


def test_mean_shift_out_of_range_does_not_crash(open_app: Callable[..., AppTest]) -> None:
    at = open_app(MEAN)
    ok(at.slider(key="mean_shift").set_value(50.0).run())
    c = at.slider(key="mean_shift").value
    assert -10.0 <= c <= 10.0
    assert metrics(at) == expected_metrics(MEAN, DEFAULT_X, shift=c)


def test_mean_shift_survives_a_page_switch(open_app: Callable[..., AppTest]) -> None:
    at = open_app(MEAN)
    ok(at.slider(key="mean_shift").set_value(3.0).run())
    ok(at.switch_page(VAR).run())
    ok(at.switch_page(MEAN).run())
    assert at.slider(key="mean_shift").value == 3.0
    assert metrics(at) == expected_metrics(MEAN, DEFAULT_X, shift=3.0)


def test_mean_formula_shows_the_terms(open_app: Callable[..., AppTest]) -> None:
    at = _typed(open_app(MEAN), "1, -2, 3.5")
    assert latex(at).endswith(r"\frac{1}{3}\left(1 - 2 + 3.5\right) = 0.8333")


def test_mean_formula_large_values_in_latex(open_app: Callable[..., AppTest]) -> None:
    # Regression (ui/text.py, tex_num; see tests/test_ui_text.py): values in [1e3, 1e5) reached
    # st.latex as "4e+04" (an italic e) instead of plain digits or "4 \times 10^{4}".
    # Regression (number display, tests/test_number_display.py): μ = 40001.5 was rounded to 40002,
    # which is one of the x's.
    at = _typed(open_app(MEAN), "40000, 40001, 40002, 40003")
    assert latex(at).endswith(r"\left(40000 + 40001 + 40002 + 40003\right) = 40001.5")
    assert "e+" not in latex(at)
    assert metric(at, "μ (mean)") == "40001.5"


@pytest.mark.parametrize(
    ("page", "key", "right", "wrong"),
    [
        (MEAN, "mean_q", "Nothing: it is unchanged", "Every entry grows by 5"),
        (VAR, "var_q", "It is multiplied by 9", "It triples"),
        (STD, "std_q", "All zeros", "NaN, because of 0/0"),
        (SS, "ss_q", "γ = 2, β = 1.5", "γ = 1.5, β = 2"),
        (FULL, "full_q", "2", "512"),
    ],
)
def test_predict_then_reveal(
    steady_server: None, open_app: Callable[..., AppTest], page: str, key: str, right: str, wrong: str
) -> None:
    at = open_app(page)
    assert at.button(key=f"{key}_reveal").disabled  # commit to a prediction first
    ok(at.radio(key=f"{key}_guess").set_value(wrong).run())
    assert not at.button(key=f"{key}_reveal").disabled
    assert not at.main.success and not at.main.warning  # nothing revealed before the click
    ok(at.button(key=f"{key}_reveal").click().run())
    (warn,) = texts(at.main.warning)
    assert warn.startswith(f"Not quite: the answer is {right}.")
    ok(at.radio(key=f"{key}_guess").set_value(right).run())
    (succ,) = texts(at.main.success)
    assert succ.startswith(f"Right: {right}.")
    assert not at.main.warning


# ---------------------------------------------------------------------------- 2 · Variance


@pytest.mark.parametrize("a", [0.1, 0.5, 2.0, 10.0])
def test_variance_scale_multiplies_sigma2_by_a_squared(open_app: Callable[..., AppTest], a: float) -> None:
    at = open_app(VAR)
    ok(at.select_slider(key="var_scale").set_value(a).run())
    assert at.select_slider(key="var_scale").value == a
    var1, var_a = float(ln.variance(DEFAULT_X)), float(ln.variance(DEFAULT_X * a))
    assert var_a == pytest.approx(a * a * var1, rel=1e-12)
    var_sample = float(ln.variance(DEFAULT_X * a, ddof=1))
    shown = fmt(var_a, digits_to_separate([var_a, var_sample], same_within=rounding_noise(var_a)))
    assert metric(at, "σ² (÷d, population)") == shown
    assert metric(at, "σ = √σ²") == fmt(var_a**0.5)
    assert metrics(at) == expected_metrics(VAR, DEFAULT_X, scale=a)


@pytest.mark.parametrize("offset", [0.0, 1e2, 1e4, 1e6, 1e8])
def test_variance_offset_one_pass_versus_exact(open_app: Callable[..., AppTest], offset: float) -> None:
    at = open_app(VAR)
    ok(at.select_slider(key="var_offset").set_value(offset).run())
    assert metrics(at) == expected_metrics(VAR, DEFAULT_X, offset=offset)
    # the exact value does not move with the offset
    exact, naive = two_pass_one_pass(DEFAULT_X, offset)
    digits = digits_to_separate([exact, naive], 6)
    assert metric(at, "two-pass, float64 (this lab)") == fmt(float(ln.variance(DEFAULT_X)), digits)
    assert metric(at, "one-pass E[x²] − μ² in float32") == fmt(naive, digits)
    if offset >= 1e4:
        assert metric(at, "one-pass E[x²] − μ² in float32") != metric(at, "two-pass, float64 (this lab)")


def test_variance_one_pass_negative_is_flagged(open_app: Callable[..., AppTest]) -> None:
    at = _typed(open_app(VAR), "1, 2, 3, 4")  # + the default offset 1e4
    exact, naive = two_pass_one_pass(np.array([1.0, 2.0, 3.0, 4.0]), 1e4)
    assert naive < 0
    m = next(m for m in page_metric_elements(at) if m.label == "one-pass E[x²] − μ² in float32")
    assert m.value == fmt(naive, digits_to_separate([exact, naive], 6))
    assert m.delta == "negative: √ would give NaN"
    assert metric(at, "two-pass, float64 (this lab)") == "1.25"


def test_variance_single_value(open_app: Callable[..., AppTest]) -> None:
    at = _typed(open_app(VAR), "7")
    assert metrics(at) == expected_metrics(VAR, np.array([7.0]))
    assert metric(at, "÷(d−1) would give") == "undefined (d = 1)"
    assert any("d = 1" in i for i in texts(at.main.info))


# ---------------------------------------------------------------------------- 3 · Standardize


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 0.1, 1.0])
def test_standardize_eps_sets_the_variance_of_xhat(open_app: Callable[..., AppTest], eps: float) -> None:
    at = open_app(STD)
    ok(at.select_slider(key="eps").set_value(eps).run())
    assert at.select_slider(key="eps").value == eps
    var = float(ln.variance(DEFAULT_X))
    xhat_var = float(ln.variance(ln.standardize(DEFAULT_X, eps=eps)))
    # as many digits as it takes to show how far below 1 it is (ε = 1e-12: 0.999999999999)
    shown = [xhat_var, var / (var + eps)]
    digits = digits_to_separate(shown, 6, against=[1.0], same_within=rounding_noise(1.0))
    want = fmt(var / (var + eps), digits)
    if eps == 1e-12:
        assert want.startswith("0.99999999999")
    assert metric(at, "variance of x̂") == want
    assert metric(at, "σ² / (σ² + ε)") == want
    assert metrics(at) == expected_metrics(STD, DEFAULT_X, eps=eps)


def _shown_feature(at: AppTest) -> str:
    return latex(at)


@pytest.mark.parametrize("i", [1, 3, 8])
def test_standardize_feature_arithmetic(open_app: Callable[..., AppTest], i: int) -> None:
    at = open_app(STD)
    ok(at.slider(key="std_feature").set_value(float(i)).run())
    assert at.slider(key="std_feature").value == i
    s = ln.layer_norm_steps(DEFAULT_X, eps=EPS)
    tex = _shown_feature(at)
    assert tex.startswith(rf"\hat{{x}}_{{{i}}} = ")
    assert tex.endswith(f"= {tex_num(s.x_hat[i - 1])}")
    assert rf"{{{tex_num(s.x[i - 1], mu_digits(s))} - {tex_num(float(s.mu), mu_digits(s))}}}" in tex


@pytest.mark.parametrize("bad", [0, 13])  # d + 5 with d = 8
def test_standardize_feature_out_of_range(open_app: Callable[..., AppTest], bad: int) -> None:
    at = open_app(STD)
    ok(at.slider(key="std_feature").set_value(5.0).run())
    ok(at.slider(key="std_feature").set_value(float(bad)).run())
    shown = round(at.slider(key="std_feature").value)
    assert 1 <= shown <= 8  # fell back or was clamped, never out of range
    assert _shown_feature(at).startswith(rf"\hat{{x}}_{{{shown}}} = ")


def test_standardize_feature_survives_a_smaller_d(open_app: Callable[..., AppTest]) -> None:
    at = open_app(STD)
    ok(at.slider(key="std_feature").set_value(8.0).run())
    ok(at.select_slider(key="d").set_value(2).run())
    shown = round(at.slider(key="std_feature").value)
    assert 1 <= shown <= 2
    s = ln.layer_norm_steps(ln.make_preset("standard normal", 2, 0), eps=EPS)
    assert _shown_feature(at).endswith(f"= {tex_num(s.x_hat[shown - 1])}")


@pytest.mark.parametrize("spread", [1e-8, 1e-3, 1.0])
def test_standardize_spread(open_app: Callable[..., AppTest], spread: float) -> None:
    at = open_app(STD)
    ok(at.select_slider(key="std_spread").set_value(spread).run())
    assert metrics(at) == expected_metrics(STD, DEFAULT_X, spread=spread)
    near = ln.layer_norm_steps(3.0 + spread * ln.make_preset("standard normal", 8, seed=1), eps=EPS)
    assert metric(at, "variance of x̂", 1) == near_xhat_variance(near)


def test_standardize_constant_vector_is_all_zeros(open_app: Callable[..., AppTest]) -> None:
    at = open_app(STD)
    ok(at.selectbox(key="preset").set_value("constant").run())
    assert metric(at, "mean of x̂") == "0" and metric(at, "variance of x̂") == "0"


# ---------------------------------------------------------------------------- 4 · Scale & shift


@pytest.mark.parametrize(("g", "b"), [(2.0, -1.5), (-0.5, 3.0), (0.0, 0.25)])
def test_gamma_beta_set_mean_and_spread_of_y(open_app: Callable[..., AppTest], g: float, b: float) -> None:
    at = open_app(SS)
    ok(at.slider(key="gamma").set_value(g).run())
    ok(at.slider(key="beta").set_value(b).run())
    assert (at.slider(key="gamma").value, at.slider(key="beta").value) == (g, b)
    y = ln.layer_norm(DEFAULT_X, np.full(8, g), np.full(8, b), eps=EPS)
    assert metric(at, "mean of y") == mean_of_y(ln.layer_norm_steps(DEFAULT_X, np.full(8, g), np.full(8, b)))
    if b == 0.25:  # γ = 0: y is β everywhere, exactly
        assert metric(at, "mean of y") == "0.25"
    assert metric(at, "standard deviation of y") == fmt(float(ln.variance(y)) ** 0.5)
    assert metrics(at) == expected_metrics(SS, DEFAULT_X, gamma=g, beta=b)
    assert float(ln.mean(y)) == pytest.approx(b, abs=1e-12)


def test_undo_recovers_x(open_app: Callable[..., AppTest]) -> None:
    at = open_app(SS)
    ok(at.button(key="ss_undo").click().run())
    assert at.radio(key="affine_mode").value == AFFINE_MODES[2]
    s = ln.layer_norm_steps(DEFAULT_X, eps=EPS)
    sigma, mu = float(s.sigma), float(s.mu)
    y = ln.layer_norm(DEFAULT_X, np.full(8, sigma), np.full(8, mu), eps=EPS)
    diff = ln.max_abs_diff(y, DEFAULT_X)
    assert metric(at, "largest |y − x|") == fmt(diff)  # ε's effect is far above rounding here
    assert diff < 1e-3 * sigma  # only ε's effect is left
    assert metrics(at) == expected_metrics(SS, DEFAULT_X, gamma=sigma, beta=mu)
    shown_mean = metric(at, "mean of y")
    assert shown_mean == mean_of_y(ln.layer_norm_steps(DEFAULT_X, np.full(8, sigma), np.full(8, mu)))
    assert float(shown_mean.replace("−", "-")) == pytest.approx(mu, rel=1e-3)  # y's mean is μ again


def test_reset_restores_gamma_one_beta_zero(open_app: Callable[..., AppTest]) -> None:
    at = open_app(SS)
    ok(at.slider(key="gamma").set_value(2.5).run())
    ok(at.slider(key="beta").set_value(-1.0).run())
    ok(at.button(key="ss_undo").click().run())
    ok(at.button(key="ss_reset").click().run())
    assert at.radio(key="affine_mode").value == AFFINE_MODES[0]
    assert (at.slider(key="gamma").value, at.slider(key="beta").value) == (1.0, 0.0)
    assert metrics(at) == expected_metrics(SS, DEFAULT_X)
    s = ln.layer_norm_steps(DEFAULT_X, eps=EPS)
    assert metric(at, "standard deviation of y") == fmt(float(s.var / (s.var + EPS)) ** 0.5)


def test_per_feature_table(open_app: Callable[..., AppTest]) -> None:
    from ui.text import plain  # the message quotes a cell

    at = open_app(SS)
    ok(at.button(key="ss_table").click().run())
    assert at.radio(key="affine_mode").value == AFFINE_MODES[1]
    editor = at.dataframe[0].value  # st.data_editor
    assert list(editor.columns) == ["γ", "β"] and len(editor) == 8
    assert metrics(at) == expected_metrics(SS, DEFAULT_X)

    at.session_state["ss_editor_8"] = {
        "edited_rows": {0: {"γ": 2.0}, 1: {"β": 0.5}, 7: {"γ": -3.0, "β": 1.25}},
        "added_rows": [],
        "deleted_rows": [],
    }
    ok(at.run())
    gamma = np.array([2.0, 1, 1, 1, 1, 1, 1, -3.0])
    beta = np.array([0.0, 0.5, 0, 0, 0, 0, 0, 1.25])
    assert metrics(at) == expected_metrics(SS, DEFAULT_X, gamma=gamma, beta=beta)
    assert not at.error

    at.session_state["ss_editor_8"] = {"edited_rows": {3: {"β": "abc"}}, "added_rows": [], "deleted_rows": []}
    ok(at.run())
    (err,) = texts(at.main.error)
    assert err.startswith("γ/β table: " + plain("Row 4 of the β column is 'abc', which is not a number."))
    assert metrics(at) == expected_metrics(SS, DEFAULT_X, gamma=gamma, beta=beta)  # last valid values

    # the valid per-feature γ, β reach the Full formula page through the sidebar
    ok(at.switch_page(FULL).run())
    table = at.dataframe[0].value
    np.testing.assert_array_equal(table["γ"].to_numpy(), gamma)
    np.testing.assert_array_equal(table["β"].to_numpy(), beta)


def test_minilm_gamma_beta_on_scale_shift(open_app: Callable[..., AppTest]) -> None:
    at = open_app(SS)
    ok(at.selectbox(key="src").set_value("Real token (MiniLM)").run())
    ok(at.radio(key="affine_mode").set_value(AFFINE_MODES[3]).run())
    x, rec = minilm_token()
    g, b = rec.gamma[0].astype(np.float64), rec.beta[0].astype(np.float64)  # type: ignore[attr-defined]
    assert metrics(at) == expected_metrics(SS, x, gamma=g, beta=b)
    assert any("MiniLM's learned γ and β" in i for i in texts(at.main.info))
    # back to a preset: the choice is kept (not silently reset), γ = 1, β = 0 apply, and the
    # sidebar says why; back to the token, the learned γ, β return (regression: the radio used
    # to lose the MiniLM choice when its option list shrank).
    ok(at.selectbox(key="src").set_value("Preset").run())
    assert at.radio(key="affine_mode").value == AFFINE_MODES[3]
    assert any("need a real MiniLM token" in c for c in texts(at.sidebar.caption))
    assert metrics(at) == expected_metrics(SS, DEFAULT_X)
    ok(at.selectbox(key="src").set_value("Real token (MiniLM)").run())
    assert metrics(at) == expected_metrics(SS, x, gamma=g, beta=b)


# ---------------------------------------------------------------------------- 5 · Full formula


def test_full_formula_table(open_app: Callable[..., AppTest]) -> None:
    at = open_app(FULL)
    ok(at.slider(key="gamma").set_value(1.5).run())
    ok(at.slider(key="beta").set_value(-0.25).run())
    s = ln.layer_norm_steps(DEFAULT_X, np.full(8, 1.5), np.full(8, -0.25), eps=EPS)
    table: pd.DataFrame = at.dataframe[0].value
    assert list(table.columns) == ["i", "x", "μ", "x − μ", "σ²", "√(σ² + ε)", "x̂", "γ", "β", "y"]
    assert list(table["i"]) == list(range(1, 9))
    for col, want in [
        ("x", s.x),
        ("x − μ", s.centered),
        ("x̂", s.x_hat),
        ("γ", s.gamma),
        ("β", s.beta),
        ("y", s.y),
    ]:
        np.testing.assert_array_equal(table[col].to_numpy(), want, err_msg=col)
    assert set(table["μ"]) == {float(s.mu)} and set(table["σ²"]) == {float(s.var)}
    assert set(table["√(σ² + ε)"]) == {float(s.std)}
    assert metrics(at) == expected_metrics(FULL, DEFAULT_X)


def test_full_formula_matches_minilm(open_app: Callable[..., AppTest]) -> None:
    at = open_app(FULL)
    ok(at.selectbox(key="src").set_value("Real token (MiniLM)").run())
    x, rec = minilm_token()
    g, b = rec.gamma[0].astype(np.float64), rec.beta[0].astype(np.float64)  # type: ignore[attr-defined]
    recorded = rec.outputs[0, 0, 0].astype(np.float64)  # type: ignore[attr-defined]

    # γ = 1, β = 0 and ε = 1e-5: an honest "not the same", with the size of the gap
    (info,) = [i for i in texts(at.main.info) if i.startswith("Largest difference")]
    far = ln.max_abs_diff(ln.layer_norm(x, eps=EPS), recorded)
    assert info.startswith(f"Largest difference from MiniLM's recorded output: {fmt(far)}.")

    ok(at.radio(key="affine_mode").set_value(AFFINE_MODES[3]).run())
    ok(at.select_slider(key="eps").set_value(1e-12).run())
    diff = ln.max_abs_diff(ln.layer_norm(x, g, b, eps=1e-12), recorded)
    assert diff < 1e-5
    (succ,) = texts(at.main.success)
    assert "agree" in succ and f"agree to {fmt(diff)} at most" in succ
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["y"].to_numpy(), recorded, rtol=0, atol=1e-5)


# ---------------------------------------------------------------------------- sidebar and links


def test_new_draw_button(open_app: Callable[..., AppTest]) -> None:
    # Regression (ui/inputs.py, _preset_input): the button wrote st.session_state["seed"] in the
    # script body after the `seed` number_input existed: StreamlitWidgetAlreadyInstantiatedError.
    at = open_app(MEAN)
    ok(at.button(key="reseed").click().run())
    assert at.number_input(key="seed").value == 1
    assert metrics(at) == expected_metrics(MEAN, ln.make_preset("standard normal", 8, 1))
    ok(at.button(key="reseed").click().run())
    assert at.number_input(key="seed").value == 2
    ok(at.number_input(key="seed").set_value(9999).run())
    ok(at.button(key="reseed").click().run())
    assert at.number_input(key="seed").value == 0  # wraps around: a click always draws anew
    assert metrics(at) == expected_metrics(MEAN, ln.make_preset("standard normal", 8, 0))


@pytest.mark.parametrize("page", PAGES)
def test_bad_link_warns_and_uses_valid_settings(open_app: Callable[..., AppTest], page: str) -> None:
    query = {"d": "999999", "eps": "banana", "src": "nope", "seed": "-5", "gamma": "100"}
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    ok(at.run())
    (warn,) = texts(at.sidebar.warning)
    from ui.text import plain  # link values are quoted as plain text (tests/test_links.py: every message)

    for k, v in query.items():
        assert f"The link's {k}={plain(v)} " in warn  # each named, with the value used instead
    assert at.selectbox(key="src").value == "Preset"  # unknown: the default
    assert at.select_slider(key="d").value == 4096 and at.select_slider(key="eps").value == EPS  # clamped
    assert at.number_input(key="seed").value == 0 and at.slider(key="gamma").value == 3.0  # clamped
    if page != HOME:
        ok(at.switch_page(page).run())
    assert metrics(at) == expected_metrics(page, ln.make_preset("standard normal", 4096, 0), gamma=3.0)


def test_good_link_is_applied_without_warning(open_app: Callable[..., AppTest]) -> None:
    query = {"preset": "scaled (σ = 10)", "d": "768", "seed": "42", "eps": "1e-12", "gamma": "2.5"}
    at = open_app(SS, query=query)
    assert not at.warning
    x = ln.make_preset("scaled (σ = 10)", 768, 42)
    assert metrics(at) == expected_metrics(SS, x, eps=1e-12, gamma=2.5)


def test_switch_page_runs_inside_the_app_shell() -> None:
    # Regression (ui/page.py, ensure_app_shell): the lessons live in a folder named `pages/`, so
    # Streamlit starts in its legacy "pages directory" mode and, until app.py's st.navigation has
    # run once in the process, executes pages/<page>.py *instead of* app.py (a deep link to a
    # fresh server). AppTest resets that flag before every run, so every switch_page run starts in
    # that mode: this checks the page still ends up inside app.py, with the shared sidebar and the
    # page title set by set_page_config's navigation, and with a fresh (not stale) LabInput.
    at = AppTest.from_file(APP, default_timeout=60)
    ok(at.run())
    ok(at.switch_page(MEAN).run())
    assert [s.key for s in at.sidebar.selectbox][:2] == ["src", "preset"]
    ok(at.select_slider(key="d").set_value(2).run())  # a sidebar widget still works on the page
    assert metrics(at) == expected_metrics(MEAN, ln.make_preset("standard normal", 2, 0))


def test_deep_link_straight_to_a_page() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["d"] = "16"
    ok(at.run())
    ok(at.switch_page(FULL).run())
    assert at.select_slider(key="d").value == 16
    assert metrics(at) == expected_metrics(FULL, ln.make_preset("standard normal", 16, 0))
