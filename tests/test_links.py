"""A shared link's settings are read as numbers, matched within rounding, and every change is said.

Streamlit's ``bind="query-params"`` matches a link's text against each option's text: ``eps=1e-7``
was refused (the slider prints ``1e-07``), ``gamma=0.52`` was taken off the slider's steps and
``d=16&d=768`` was reported as "used one of them" while the default 8 was used. Each case below
opens the app with a link and checks the value the widget really has afterwards, the exact message
and the canonical text left in the URL (what a copied link carries).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from live_support import live_metrics
from streamlit.testing.v1 import AppTest

from ui import links
from ui.settings import D_CHOICES, EPS_CHOICES, LINK_KEYS, TOKEN_KEYS, URL_KEYS, eps_link, eps_text

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
MEAN = "pages/1_mean.py"
WIDGETS = {"src": "selectbox", "preset": "selectbox", "d": "select_slider", "seed": "number_input"}
WIDGETS |= {"eps": "select_slider", "gamma": "slider", "beta": "slider"}


def _open(**params: str | list[str]) -> AppTest:
    """A new session started from a link with ``params``, showing the Mean page."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _value(at: AppTest, key: str) -> object:
    return getattr(at, WIDGETS[key])(key=key).value


def _warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.sidebar.warning]


def _infos(at: AppTest) -> list[str]:
    return [i.value for i in at.sidebar.info]


# --- values that match an offered one within rounding: used, no message --------------------------


@pytest.mark.parametrize("text", ["1e-7", "1E-07", "0.0000001", "1e-07", " 1e-7 ", "1.0e-7"])
def test_eps_spellings_select_the_slider_value_silently(text: str) -> None:
    at = _open(eps=text)
    assert _value(at, "eps") == 1e-07
    assert _warnings(at) == [] and _infos(at) == []
    assert at.query_params["eps"] == "1e-07"  # the slider's own text: a copied link keeps it


@pytest.mark.parametrize(
    ("key", "text", "value", "canonical"),
    [
        ("d", "16.0", 16, "16"),
        ("d", "7.9999999999", 8, None),  # 8 is the default: Streamlit keeps defaults out of the URL
        ("seed", "007", 7, "7"),
        ("seed", "7.0", 7, "7"),
        ("gamma", "0.5", 0.5, "0.5"),
        ("gamma", "0.50000000001", 0.5, "0.5"),
        ("beta", "-0.15", -0.15, "-0.15"),
        ("beta", "−1.5", -1.5, "-1.5"),  # a typographic minus, as the pages print numbers
        ("gamma", "3", 3.0, "3"),
        ("preset", "ONE LARGE OUTLIER", "one large outlier", "one large outlier"),
        ("src", "type  numbers", "Type numbers", "Type numbers"),
    ],
)
def test_values_within_rounding_are_used_silently(
    key: str, text: str, value: object, canonical: str | None
) -> None:
    at = _open(**{key: text})
    assert _value(at, key) == value
    assert _warnings(at) == []
    assert at.query_params.get(key) == canonical


# --- values that had to change: the message names the value used --------------------------------


@pytest.mark.parametrize(
    ("key", "text", "value", "message"),
    [
        (
            "gamma",
            "0.52",
            0.5,
            "The link's gamma=0\u2060\\.52 is not on the slider's steps of 0.05; "
            "the lab uses the nearest step, γ = 0.5.",
        ),
        (
            "d",
            "999999",
            4096,
            "The link's d=999999 is above the largest size offered, 4096; the lab uses d = 4096.",
        ),
        ("d", "1", 2, "The link's d=1 is below the smallest size offered, 2; the lab uses d = 2."),
        ("d", "7", 8, "The link's d=7 is not one of the values offered; the lab uses the nearest, d = 8."),
        (
            "eps",
            "banana",
            1e-5,
            "The link's eps=banana is not a number; the lab uses the default ε = 1e-05.",
        ),
        ("eps", "", 1e-5, "The link's eps= is empty; the lab uses the default ε = 1e-05."),
        (
            "eps",
            "3e-7",
            2e-7,
            "The link's eps=3e\\-7 is not one of the values offered; the lab uses the nearest, ε = 2e-07.",
        ),
        (
            "eps",
            "0",
            1e-12,
            "The link's eps=0 is below the smallest ε offered, 1e-12; the lab uses ε = 1e-12.",
        ),
        (
            "seed",
            "7.5",
            8,
            "The link's seed=7\u2060\\.5 is not a whole number; the lab uses the nearest, seed = 8.",
        ),
        (
            "seed",
            "12345",
            9999,
            "The link's seed=12345 is above the largest seed offered, 9999; the lab uses seed = 9999.",
        ),
        (
            "seed",
            "-3",
            0,
            "The link's seed=\\-3 is below the smallest seed offered, 0; the lab uses seed = 0.",
        ),
        ("gamma", "nan", 1.0, "The link's gamma=nan is not a number; the lab uses the default γ = 1."),
        # Beyond float64's range or infinite: still a number past an end of the slider, so clamped
        # (before: "is not a number" and the default, a silently different kind of answer).
        ("gamma", "inf", 3.0, "The link's gamma=inf is above the largest γ offered, 3; the lab uses γ = 3."),
        (
            "beta",
            "-1e999",
            -3.0,
            "The link's beta=\\-1e999 is below the smallest β offered, -3; the lab uses β = -3.",
        ),
        (
            "d",
            "1e999",
            4096,
            "The link's d=1e999 is above the largest size offered, 4096; the lab uses d = 4096.",
        ),
        (
            "eps",
            "-inf",
            1e-12,
            "The link's eps=\\-inf is below the smallest ε offered, 1e-12; the lab uses ε = 1e-12.",
        ),
        (
            "preset",
            "no such preset",
            "standard normal",
            "The link's preset=no such preset is not one of the presets; "
            "the lab uses the default preset “standard normal”.",
        ),
        (
            "src",
            "nope",
            "Preset",
            "The link's src=nope is not one of the inputs; the lab uses the default input “Preset”.",
        ),
    ],
)
def test_changed_values_are_said_with_the_value_used(
    key: str, text: str, value: object, message: str
) -> None:
    at = _open(**{key: text})
    assert _value(at, key) == value
    assert _warnings(at) == [message]


def test_a_key_given_twice_uses_the_last_and_says_so() -> None:
    at = _open(d=["16", "768"])
    assert _value(at, "d") == 768
    assert _warnings(at) == ["d\\=16\\&d\\=768: the link gives d twice; the lab uses d = 768 (the last)."]
    assert at.query_params["d"] == "768"
    at.switch_page(MEAN).run()
    assert live_metrics(at)[0] == ("d (features)", "768")  # the page uses it (its live slider shows it)


def test_a_repeated_key_whose_last_value_is_bad_says_both() -> None:
    at = _open(eps=["1e-3", "banana", "1e-9", "x"])
    assert _value(at, "eps") == 1e-5
    assert _warnings(at) == [
        "eps\\=1e\\-3\\&eps\\=banana\\&eps\\=1e\\-9\\&eps\\=x: the link gives eps 4 times; the last, x, "
        "is not a number, so the lab uses the default ε = 1e-05."
    ]


def test_the_same_value_twice_is_no_problem() -> None:
    at = _open(d=["16", "16.0"])
    assert _value(at, "d") == 16
    assert _warnings(at) == []


def test_several_problems_share_one_warning_in_link_order() -> None:
    at = _open(gamma="-9", beta="0.15", seed="7.5")
    assert (_value(at, "gamma"), _value(at, "beta"), _value(at, "seed")) == (-3.0, 0.15, 8)
    assert _warnings(at) == [
        "The link's gamma=\\-9 is below the smallest γ offered, -3; the lab uses γ = -3.\n\n"
        "The link's seed=7\u2060\\.5 is not a whole number; the lab uses the nearest, seed = 8."
    ]
    assert dict(at.query_params) == {"gamma": "-3", "beta": "0.15", "seed": "8"}


# --- keys the input does not use, keys the lab does not know ---------------------------------------


def test_keys_the_chosen_input_does_not_use_keep_their_note() -> None:
    at = _open(src="Type numbers", d="16", seed="3")
    assert _value(at, "src") == "Type numbers"
    assert _infos(at) == [
        "The link's `d`, `seed` are not used by the chosen input and γ, β setting "
        "(kept for when you switch to a setting that uses them)."
    ]
    assert _warnings(at) == []
    at.selectbox(key="src").set_value("Preset").run()  # what the note promises: they count now
    assert _value(at, "d") == 16 and _value(at, "seed") == 3


def test_a_changed_value_not_used_yet_is_said_at_once() -> None:
    # γ = inf under per-feature γ, β: clamped to 3 for later; a QA pass found no word about it, then
    # or when "Same γ, β for every feature" made it count.
    at = _open(affine_mode="Per feature (edit on Scale & shift)", gamma="inf")
    assert _warnings(at) == ["The link's gamma=inf is above the largest γ offered, 3; the lab uses γ = 3."]
    assert any("`gamma` is not used by the chosen input and γ, β setting" in i for i in _infos(at))
    at.radio(key="affine_mode").set_value("Same γ, β for every feature").run()
    assert _value(at, "gamma") == 3.0


def test_unknown_keys_are_said_once_and_left_alone() -> None:
    at = _open(foo="1", eps="1e-3")
    assert _infos(at) == ["The link's foo\\=1 is not a setting of this lab and was ignored."]
    assert _value(at, "eps") == 1e-3
    at.slider(key="gamma").set_value(2.0).run()  # the next run: said once, not on every rerun
    assert _infos(at) == [] and _warnings(at) == []
    assert _value(at, "eps") == 1e-3 and _value(at, "gamma") == 2.0


def test_a_pages_own_keys_are_not_called_unknown() -> None:
    at = _open(ys_text1="hello", est_eps="sidebar", geo_gamma1="2", zz="1")
    assert _infos(at) == [
        "The link's ys\\_text1\\=hello (Your sentence\\, live), est\\_eps\\=sidebar (Estimators and ε), "
        "geo\\_gamma1\\=2 (Invariances and geometry) set controls of other pages: they are not used on "
        "this one, and each is used when you open its page.",
        "The link's zz\\=1 is not a setting of this lab and was ignored.",
    ]


def _open_page(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_another_pages_key_is_named_with_its_page_and_left_in_the_link() -> None:
    """Found in QA: /mean?depth_layers=100 said nothing, and Depth and drift then opened at L = 30."""
    at = _open_page(MEAN, depth_layers="100", mean_shift="2")
    assert _infos(at) == [
        "The link's depth\\_layers\\=100 (Depth and drift) sets a control of another page: it is not used on "
        "this one, and it is used when you open that page."
    ]
    assert at.slider(key="mean_shift").value == 2.0  # this page's own key is used
    assert at.query_params["depth_layers"] == "100"  # like an unknown key: not removed
    at.slider(key="gamma").set_value(2.0).run()  # said once
    assert _infos(at) == []


DEPTH = "pages/8_depth_and_drift.py"


def _menu_to(at: AppTest, page: str) -> None:
    """Switch pages as the sidebar menu does in a browser: the URL's query goes."""
    for key in list(at.query_params):
        del at.query_params[key]
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]


def test_another_pages_key_counts_when_that_page_is_opened_once() -> None:
    """QA: the note said to open that page, and the menu then opened it at the default (L = 30)."""
    at = _open_page(MEAN, depth_layers="100", depth_gain="9")
    _menu_to(at, DEPTH)
    assert at.slider(key="depth_layers").value == 100
    assert at.slider(key="depth_gain").value == 3.0  # out of range: clamped, and said above the control
    said = [str(w.value) for w in at.main.warning]
    assert "The link's depth_gain=9 is above the largest gain offered, 3; the lab uses gain = 3." in said
    at.slider(key="depth_layers").set_value(50).run()  # the student's own choice from then on
    _menu_to(at, MEAN)
    _menu_to(at, DEPTH)
    assert at.slider(key="depth_layers").value == 50


def test_a_placement_link_sets_the_choice_both_pages_share() -> None:
    """Each page has its own placement key (one key on two pages was lost on Back); the choice is shared."""
    pre = "pre-LN: before the sublayer (GPT-2)"  # a link carries the option's shown text
    at = _open_page(MEAN, depth_placement="Pre-LN")
    assert _infos(at) == [
        "The link's depth\\_placement\\=Pre\\-LN (Depth and drift) sets a control "
        "of another page: it is not used on this one, and it is used when you open that page."
    ]
    at = _open_page("pages/8_depth_and_drift.py", depth_placement=pre, depth_residual="true")
    assert not _infos(at) and not [w for w in at.main.warning if "placement" in w.value]
    assert at.radio(key="depth_placement").value == "pre"
    _menu_to(at, "pages/10_inside_a_transformer.py")
    assert at.radio(key="tf_placement").value == "pre"
    at.radio(key="tf_placement").set_value("post").run()
    _menu_to(at, "pages/8_depth_and_drift.py")
    assert at.radio(key="depth_placement").value == "post"


@pytest.mark.parametrize(
    ("page", "key", "old", "now"),
    [
        ("pages/8_depth_and_drift.py", "depth_placement", "pre-LN: before the sublayer (GPT-2, LLaMA)",
         "pre"),
        (MEAN, "affine_mode", "Undo the normalization: γ = σ, β = μ", "Undo for this vector: γ = σ, β = μ"),
    ],
)
def test_a_link_with_a_label_the_lab_once_showed_opens_what_it_meant(
    page: str, key: str, old: str, now: str
) -> None:
    """Labels renamed because they overclaimed (LLaMA uses RMSNorm; Undo gives back one vector) keep
    the links written with them: the old text picks the renamed option, silently."""
    at = _open_page(page, **{key: old})
    assert not at.exception
    assert not [w for w in at.warning if key in w.value]
    assert at.radio(key=key).value == now
    at = _open_page(page, **{key: "  " + old.upper().replace(" ", "  ")})  # as loosely as a current label
    assert not [w for w in at.warning if key in w.value]
    assert at.radio(key=key).value == now


@pytest.mark.parametrize("other", ["pre", "post"])
def test_a_links_placement_for_the_other_page_is_used_there(other: str) -> None:
    """QA: the note promised the other page's key "is used when you open that page", and that page
    showed the first page's placement instead (the shared choice was synced over the link)."""
    text = {"pre": "pre-LN: before the sublayer (GPT-2)", "post": "post-LN: after the add (BERT)"}
    here = "post" if other == "pre" else "pre"
    at = _open_page(
        "pages/8_depth_and_drift.py",
        depth_residual="true",
        depth_placement=text[here],
        tf_placement=text[other],
    )
    assert at.radio(key="depth_placement").value == here
    assert any("tf\\_placement" in i and "used when you open that page" in i for i in _infos(at)), _infos(at)
    _menu_to(at, "pages/10_inside_a_transformer.py")
    assert at.radio(key="tf_placement").value == other  # the link's value for that page, as promised
    _menu_to(at, "pages/8_depth_and_drift.py")
    assert at.radio(key="depth_placement").value == other  # from then on one shared choice


def test_presentation_mode_is_every_pages_key() -> None:
    at = _open_page(MEAN, present="true")
    assert _infos(at) == []


def test_a_key_that_only_looks_like_a_pages_key_is_unknown() -> None:
    """Found by the fuzzer: ``prec_=`` passed as a page key because page keys were matched by prefix."""
    at = _open(prec_="", depth_foo="1", depth_layers="30")
    assert _infos(at) == [
        "The link's depth\\_layers\\=30 (Depth and drift) sets a control of another page: it is not used on "
        "this one, and it is used when you open that page.",
        "The link's prec\\_\\=, depth\\_foo\\=1 are not settings of this lab and were ignored.",
    ]


def test_the_message_is_shown_once_and_the_values_stay() -> None:
    at = _open(gamma="0.52", d="999999")
    assert len(_warnings(at)) == 1
    at.switch_page(MEAN).run()
    assert not at.exception
    assert _warnings(at) == []
    assert (_value(at, "gamma"), _value(at, "d")) == (0.5, 4096)
    at.slider(key="gamma").set_value(1.5).run()
    assert _value(at, "gamma") == 1.5


# --- the resolver alone: every offered value in every spelling ------------------------------------


@pytest.mark.parametrize("eps", EPS_CHOICES)
def test_every_eps_option_is_matched_in_every_spelling(eps: float) -> None:
    decimal = f"{eps:.13f}".rstrip("0")  # 0.0000001 for 1e-7
    for text in (repr(eps), f"{eps:g}", f"{eps:E}", eps_text(eps), decimal):
        r = links.resolve("eps", [text], LINK_KEYS["eps"])
        assert (r.value, r.note) == (eps, None), text
        assert r.text == (None if eps == 1e-5 else eps_link(eps))  # the text the lab writes: ASCII, no "+"


@pytest.mark.parametrize("d", D_CHOICES)
def test_every_size_is_matched_as_int_or_float(d: int) -> None:
    for text in (str(d), f"{d}.0", f"{d:e}", f"00{d}"):
        r = links.resolve("d", [text], LINK_KEYS["d"])
        assert (r.value, r.note) == (d, None), text


def test_every_gamma_step_round_trips_through_its_url_text() -> None:
    spec = LINK_KEYS["gamma"]
    for k in range(121):  # -3, -2.95, ..., 3
        step_value = round(-3 + k * 0.05, 10)
        r = links.resolve("gamma", [repr(step_value)], spec)
        assert r.note is None and r.value == step_value
        if r.text is not None:
            assert float(r.text) == step_value


def test_every_url_bound_sidebar_widget_is_read_by_the_link_reader() -> None:
    """A sidebar widget with bind="query-params" that ui.links does not read would be matched as text.

    (A page's own bound widgets are described with ``ui.linking.link_control``, next to the widget.)
    """
    bound = set()
    sidebar_files = [p for p in sorted((ROOT / "ui").glob("*.py")) if p.name != "controls.py"]
    for path in [ROOT / "app.py", *sidebar_files]:  # ui/controls.py binds the pages' own keys
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                kw = {k.arg: k.value for k in node.keywords}
                bind, key = kw.get("bind"), kw.get("key")
                if isinstance(bind, ast.Constant) and bind.value == "query-params":
                    assert isinstance(key, ast.Constant), (
                        f"{path.name}:{node.lineno}: a bound widget needs a fixed key"
                    )
                    bound.add(key.value)
    assert bound == set(LINK_KEYS) | set(TOKEN_KEYS) and set(LINK_KEYS) == set(URL_KEYS)


def _page_with_its_own_bound_controls() -> None:
    """A page that binds its own widgets and describes them to the link reader (ui.linking.link_control)."""
    import streamlit as st

    from ui import links
    from ui.linking import link_control
    from ui.sidebar import sidebar

    sidebar()  # app.py draws the sidebar (and reads its keys) before every page
    link_control("demo_g", links.Range(-3.0, 3.0, 0.05, 1.0, "g"), "g")
    st.slider("g", -3.0, 3.0, 1.0, 0.05, key="demo_g", bind="query-params")
    link_control("demo_pick", links.Words(["Alpha", "Beta"], "Alpha", "choices"), "pick")
    names = {"a": "Alpha", "b": "Beta"}
    st.radio("pick", ["a", "b"], format_func=names.get, key="demo_pick", bind="query-params")


@pytest.mark.parametrize(
    ("params", "g", "pick", "warnings"),
    [
        ({"demo_g": "0.50000000001", "demo_pick": "beta"}, 0.5, "b", []),
        (
            {"demo_g": "0.52"},
            0.5,
            "a",
            [
                "The link's demo_g=0\u2060\\.52 is not on the slider's steps of 0.05; "
                "the lab uses the nearest step, g = 0.5."
            ],
        ),
        (
            {"demo_g": ["1", "2"], "demo_pick": "Gamma"},
            2.0,
            "a",
            [
                "demo\\_g\\=1\\&demo\\_g\\=2: the link gives demo_g twice; the lab uses g = 2 (the last).",
                "The link's demo_pick=Gamma is not one of the choices; "
                "the lab uses the default pick “Alpha”.",
            ],
        ),
    ],
)
def test_a_page_describes_its_own_bound_controls_in_one_line(
    params: dict[str, str | list[str]], g: float, pick: str, warnings: list[str]
) -> None:
    at = AppTest.from_function(_page_with_its_own_bound_controls, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="demo_g").value == g and at.radio(key="demo_pick").value == pick
    assert [w.value for w in at.main.warning] == warnings
    at.slider(key="demo_g").set_value(-1.0).run()
    assert at.slider(key="demo_g").value == -1.0 and not at.main.warning  # the user's value counts now


# --- what a link cannot carry: said, never a silently different vector ----------------------------


@pytest.mark.parametrize(
    ("params", "what"),
    [
        ({"src": "Edit a table"}, "Edit a table"),
        ({"src": "Upload a file"}, "Upload a file"),
        ({"affine_mode": "Per feature (edit on Scale & shift)"}, "Per feature (edit on Scale & shift)"),
    ],
)
def test_a_link_to_an_input_it_cannot_carry_says_so(params: dict[str, str], what: str) -> None:
    # A QA pass copied the address of an edited table: the link opened on the starting table
    # (1, 2, 3, 4) without a word. The sidebar now says what the link could not bring.
    from ui.settings import NOT_CARRIED

    at = _open(**params)
    assert NOT_CARRIED[what] in _infos(at)
    assert "A link carries no" in NOT_CARRIED[what]
    at.select_slider(key="eps").set_value(1e-3).run()  # the user acted: the link's news is old
    assert NOT_CARRIED[what] not in _infos(at)


def test_a_link_to_the_typed_input_says_nothing_about_tables() -> None:
    at = _open(src="Type numbers", typed="1, 2, 5")
    assert not any("carries no" in i for i in _infos(at))
