"""The guided tour's stops, in order: one path through the lesson (``ui.tour`` draws them).

Each :class:`Stop` names its page, the control to use (``target``: the key whose ``.st-key-<key>``
element is outlined; ``watch``: the widget whose value the student moves, noted when they arrive), what
to look at and do (``say``), and ``done``: from the page's state, the sentence that says what just
happened, with the page's numbers, or None while it has not. Every sentence holds for every value the
student can reach at that stop, or is computed from the numbers and says when it holds.
``tests/test_tour.py`` checks the list (pages, keys, sentences) and ``tests/e2e/test_tour_browser.py``
walks it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import layernorm as ln
from layernorm.labs.depth import DepthConfig, DepthResult, simulate_depth
from layernorm.labs.quiz import make_quiz
from layernorm.labs.shared_affine import undo_for_token
from layernorm.labs.transformer_stats import SiteStats, site_stats
from ui import session
from ui.charts_depth import NORM_NAMES
from ui.live import Frame, dyt, mean, standardize, variance
from ui.live.vector import LIMIT as BAR_LIMIT
from ui.minilm import recording
from ui.navigation import SECTIONS, address
from ui.settings import AFFINE_MODES, EPS_CHOICES, LabInput, eps_text
from ui.text import digits_to_separate, fmt, rounding_noise
from ui.text import fmt_shown as _num  # a card's sentences name many numbers: a short name
from ui.widgets import DEFAULT_PLACEMENT, SPREADS

SAME, _, UNDO, _ = AFFINE_MODES
CEILING = float(np.sqrt(383))  # |x̂| < √(d − 1) at MiniLM's d = 384: a value below it never reads as equal
TITLES = {address(e.path).strip("/"): e.title for entries in SECTIONS.values() for e in entries}


@dataclass(frozen=True)
class Look:
    """What a stop reads of the page: the sidebar's input and the page's controls."""

    page: str  # the page's address without its slash ("mean"; "" for Home)
    lab: LabInput | None  # the sidebar's input (None on a page that makes its own data)
    arrived_x: bytes | None  # the sidebar's vector when the student reached this stop
    arrived: Any = None  # the value of the stop's watched control then

    @staticmethod
    def value(key: str, default: Any) -> Any:
        """A page control's value, or its default where the student has not drawn it yet."""
        v = session.widgets.get(key)
        return default if v is None else v


@dataclass(frozen=True)
class Stop:
    page: str  # the page's address without its slash ("mean"; "" for Home)
    chapter: str
    title: str
    say: str | Callable[[Look], str]  # what to look at and what to do (Markdown of the lab's own text)
    target: str | Callable[[Look], str | None] | None = None  # the key of the element to outline
    watch: str | None = None  # the widget the student moves (its value on arrival is Look.arrived)
    done: Callable[[Look], str | None] | None = None  # what just happened, once done; None: not yet

    @property
    def page_title(self) -> str:
        return TITLES[self.page]

    def outlined(self, look: Look) -> str | None:
        """The key of the element the card outlines now (its ``.st-key-`` class)."""
        return self.target(look) if callable(self.target) else self.target


def _shown(frame: Frame, readout: str, label: str) -> str:
    """A number as the page's own readout shows it (the frame the page draws with)."""
    return next(m.value for m in frame.readout(readout).metrics if m.label == label)


def _changed(look: Look, key: str, default: Any) -> Any:
    """The control's value if it is not its default (a link that sets it counts, as a move does)."""
    now = look.value(key, default)
    return None if now == default else now


def _moved(look: Look, key: str, default: Any) -> Any:
    """The control's value if the student moved it since arriving at the stop, else None."""
    now = look.value(key, default)
    return None if now == look.arrived else now


# --- the formula, step by step ----------------------------------------------------------------------


def _mean_shift(look: Look) -> str | None:
    c = _changed(look, "mean_shift", mean.SHIFT[2])
    if c is None or look.lab is None:
        return None
    before = _shown(mean.frame(look.lab.x, look.lab.eps, 0.0), mean.READOUT, "μ (mean)")
    after = _shown(mean.frame(look.lab.x, look.lab.eps, float(c)), mean.READOUT, "μ (mean)")
    return (
        f"c = {float(c):.2f}: μ moved from {before} to {after}, by c, while x − μ stayed "
        "where it was (up to float64 rounding): centring takes away any shift that every feature shares."
    )


def _bars_say(look: Look) -> str:
    text = (
        "Now change one feature: drag a bar of the chart of x up or down (or Tab to the bar and use the "
        "arrow keys). μ moves by that feature's change divided by d. The sidebar then holds your vector "
        "as typed numbers (Input: Preset brings a preset back)."
    )
    if look.lab is not None and look.lab.d > BAR_LIMIT:
        text += (
            f" This vector has {look.lab.d} features, more than the {BAR_LIMIT} a chart gives bars to: "
            "choose a smaller d in the sidebar (or, with typed numbers, edit one there)."
        )
    return text


def _mean_bar(look: Look) -> str | None:
    lab = look.lab
    if lab is None or look.arrived_x is None:
        return None
    start = np.frombuffer(look.arrived_x, dtype=np.float64)
    # a bar's release makes the input typed numbers; New draw or a preset is not a bar's move
    if lab.source != "Type numbers" or start.shape != lab.x.shape or np.array_equal(start, lab.x):
        return None
    c = float(look.value("mean_shift", mean.SHIFT[2]))  # the page's μ is of x + c
    before = _shown(mean.frame(start, lab.eps, c), mean.READOUT, "μ (mean)")
    after = _shown(mean.frame(lab.x, lab.eps, c), mean.READOUT, "μ (mean)")
    change = lab.x - start
    moved = np.flatnonzero(change)
    total = float(np.sum(change))
    what = (
        f"Feature {moved[0] + 1} moved by {_num(total)}"
        if moved.size == 1
        else f"{moved.size} features moved, by {_num(total)} in all"
    )
    by = f"{_num(total)} / {lab.d} = {_num(total / lab.d)}"
    return f"{what}; μ moved from {before} to {after}, by {by}."


def _stretch(look: Look) -> str | None:
    a = _changed(look, "var_scale", variance.SCALE_DEFAULT)
    if a is None or look.lab is None:
        return None
    a = float(a)
    if float(ln.variance(look.lab.x)) == 0:
        return f"a = {variance.scale_text(a)}: σ² stays 0: a constant vector has no spread to stretch."
    label = "σ² (÷d, population)"
    before = _shown(variance.frame(look.lab.x, look.lab.eps, 1.0), variance.SIGMA2, label)
    after = _shown(variance.frame(look.lab.x, look.lab.eps, a), variance.SIGMA2, label)
    return (
        f"a = {variance.scale_text(a)}: σ² went from {before} to {after}, "
        f"a² = {a * a:.6g} times as much: every distance from μ was multiplied by a, and σ² squares "
        "the distances."
    )


def _near_var(spread: float) -> float:
    return float(ln.variance(standardize.near_vector(spread)))


def _spread_say(look: Look) -> str:
    eps = look.lab.eps if look.lab is not None else 1e-5
    spread = float(look.value("std_spread", standardize.SPREAD_DEFAULT))
    now = (
        "its σ² is below ε now, and its x̂ has collapsed towards 0"
        if _near_var(spread) <= eps
        else "its σ² is above ε now; move the spread down first and watch x̂ collapse towards 0"
    )
    text = (
        "x̂ = (x − μ) / √(σ² + ε) divides by about σ while σ² is far above ε. Under *Where ε takes over* "
        f"is a nearly constant vector: {now}. Move **Spread of the nearly constant vector** up until its "
        f"σ² is above ε = {eps_text(eps)}."
    )
    if _near_var(max(SPREADS)) <= eps:
        text += (
            f" With ε = {eps_text(eps)}, even the largest spread keeps σ² at or below ε: lower ε in the "
            "sidebar first."
        )
    return text


def _spread(look: Look) -> str | None:
    if look.lab is None:
        return None
    spread = float(look.value("std_spread", standardize.SPREAD_DEFAULT))
    eps = look.lab.eps
    if not _near_var(spread) > eps:
        return None
    near = standardize.spread_frame(eps, spread)
    var = _shown(near, standardize.NEAR, "σ² of this vector")
    xhat_var = _shown(near, standardize.NEAR, "variance of x̂")
    return (
        f"σ² = {var} is above ε = {eps_text(eps)} now, and x̂'s variance is {xhat_var}, "
        "σ² / (σ² + ε). Move the spread back down: once σ² falls "
        "below ε the division is by about √ε, and x̂ shrinks towards 0 — finite, never NaN."
    )


def _eps_say(look: Look) -> str:
    text = (
        "ε is the same on every page: it is set in the sidebar (on a phone, open the sidebar with the "
        "arrow at the top left)."
    )
    if look.lab is None:
        return text
    var = float(ln.variance(look.lab.x))
    if var >= max(EPS_CHOICES):
        return text + (
            f" Your vector's σ² is {_num(var)}, at or above the largest ε offered "
            f"({eps_text(max(EPS_CHOICES))}): choose a preset with a smaller spread in the sidebar to see ε "
            "take over."
        )
    return text + (
        f" Raise **ε (inside the square root)** above your vector's σ² = {_num(var)} and watch x̂ and its "
        "variance."
    )


def _eps(look: Look) -> str | None:
    if look.lab is None:
        return None
    steps = ln.layer_norm_steps(look.lab.x, eps=look.lab.eps)
    var = float(steps.var)
    if var == 0:
        return (
            "This vector is constant: σ² = 0, so x − μ is 0 and x̂ is exactly 0 for every ε > 0 (without ε "
            "it would be 0/0). Choose another preset in the sidebar to see ε take over gradually."
        )
    if not look.lab.eps > var:
        return None
    xhat_var = _shown(standardize.xhat_frame(look.lab.x, look.lab.eps), standardize.XHAT, "variance of x̂")
    return (
        f"ε = {eps_text(look.lab.eps)} is above σ² = {_num(var)}: x̂'s variance is σ² / (σ² + ε) = "
        f"{xhat_var}, below one half, and x̂ shrinks towards 0 as ε grows. Put ε back down (1e-05 is "
        "PyTorch's default) before Next: the next steps are about γ and β, with ε far below σ²."
    )


def _undo_say(look: Look) -> str:
    text = (
        "γ scales each feature of x̂ and β shifts it; a network learns both. Press **Undo for this vector: "
        "γ = σ, β = μ**: with this vector's own σ and μ, y comes back to x (as near as ε lets it)."
    )
    if look.lab is not None:
        var = float(ln.variance(look.lab.x))
        if var > 0 and not look.lab.eps < 1e-3 * var:
            text += (
                f" ε is {eps_text(look.lab.eps)} now, not far below your vector's σ² = {_num(var)}: lower "
                "ε in the sidebar first (1e-05, say), or y will not quite come back."
            )
    return text


def _undo(look: Look) -> str | None:
    lab = look.lab
    if lab is None or lab.affine_mode != UNDO:
        return None
    steps = ln.layer_norm_steps(lab.x, lab.gamma, lab.beta, eps=lab.eps)
    err = float(np.max(np.abs(steps.y - lab.x)))
    var, sigma = float(steps.var), float(steps.sigma)
    if sigma == 0:
        how = "a constant vector: every x is μ, and so is every y."
    elif err <= 1e-3 * sigma:
        how = "the input is back (ε makes the divisor √(σ² + ε), a little more than σ)."
    else:
        how = (
            f"not quite the input: ε = {eps_text(lab.eps)} is not far below σ² = {_num(var)}, so the divisor "
            f"√(σ² + ε) is {_num(float(steps.std) / sigma)} times σ."
        )
    return (
        f"γ = σ = {_num(float(steps.sigma))} and β = μ = {_num(float(steps.mu))} for every feature: y "
        f"differs from x by at most {_num(err)}: {how}"
    )


def _many(look: Look) -> str | None:
    token = _moved(look, "ss_many_token", None)
    if token is None:
        return None
    rec = recording()
    sentence = int(look.value("ss_many_sentence", 0))
    site = int(look.value("ss_many_site", 2))
    positions = [int(t) for t in rec.real_token_indices(sentence)]
    if int(token) not in positions:
        return None
    r = undo_for_token(
        rec.sentence_tokens(sentence, site), positions.index(int(token)), eps=float(rec.eps[site])
    )
    others = np.delete(r.miss, r.k)
    return (  # the misses as the page's metrics print them
        f"Token {int(token)} comes back to within {fmt(float(r.miss[r.k]))}; the other {others.size} miss "
        f"by up to {fmt(float(np.max(others)))}. One pair γ, β cannot undo every token: each token's own μ "
        "and σ are not in LayerNorm's output."
    )


def _gamma_say(look: Look) -> str:
    text = (
        "The whole formula, with every intermediate number. Move **γ (scale, every feature)** in the "
        "sidebar: it stretches y, and leaves μ, σ² and x̂ as they were."
    )
    if look.lab is not None and look.lab.affine_mode != SAME:
        text += f" The γ slider is there when *γ and β* is *{SAME}*: choose that first."
    return text


def _gamma_target(look: Look) -> str:
    """The γ slider, or the choice that shows it (the sidebar draws it for the same γ, β only)."""
    return "affine_mode" if look.lab is not None and look.lab.affine_mode != SAME else "gamma_live"


def _gamma(look: Look) -> str | None:
    lab = look.lab
    gamma = _changed(look, "gamma", 1.0)
    if lab is None or gamma is None or lab.affine_mode != SAME:
        return None
    steps = ln.layer_norm_steps(lab.x, lab.gamma, lab.beta, eps=lab.eps)
    mu = float(steps.mu)
    mu_text = fmt(mu, digits_to_separate([mu], against=steps.x, same_within=rounding_noise(steps.x)))
    sd_y = float(np.sqrt(ln.variance(steps.y)))
    sd_xhat = float(np.sqrt(ln.variance(steps.x_hat)))
    return (
        f"γ = {float(gamma):.2f}: y's standard deviation is {_num(sd_y)}, |γ| times x̂'s ({_num(sd_xhat)}); "
        f"μ = {mu_text} and σ² = {_num(float(steps.var))} did not move."
    )


# --- layer versus batch, why normalize, a real transformer, the quiz ---------------------------------


def _lens(look: Look) -> str | None:
    if look.value("axes_lens", "LayerNorm") != "BatchNorm":
        return None
    text = (
        "The highlighted cells are now one feature of every token in the batch: BatchNorm computes your "
        "cell's μ and σ² from them, where LayerNorm used the d features of your cell's own token. The "
        "table below the chart gives both numbers."
    )
    if look.value("axes_source", "Seeded random batch") == "Seeded random batch":
        b, t, d = (int(look.value(k, v)) for k, v in (("axes_B", 2), ("axes_T", 4), ("axes_d", 8)))
        text += f" Here BatchNorm pools B · T = {b} · {t} = {b * t} cells and LayerNorm d = {d}" + (
            ": the same number, different cells. Change B or T to see the groups' sizes differ."
            if b * t == d
            else "."
        )
    return text


def _inference(look: Look) -> str | None:
    if look.value("tvi_mode", "Training") != "Inference":
        return None
    history = session.pages.tvi_history.get()
    seen = history[-1].after.step if history else 0
    text = (
        "In inference BatchNorm stops using the batch's own μ and σ²: it uses the running averages it kept "
        "during training, so a token's output no longer depends on the other tokens of its batch. "
        "LayerNorm computes the same thing in both modes: it never looks at the batch. The metrics under "
        "*2 · Switch to inference* compare the two for this token."
    )
    if seen == 0:
        text += (
            " No training batch has been seen yet, so the running averages are still their starting values "
            "(mean 0, variance 1) and BatchNorm's output is about x itself: press **Auto-run** under "
            "*1 · Training* and watch it change."
        )
    else:
        text += f" The running averages have seen {seen} training batch{'es' if seen != 1 else ''}."
    return text


@functools.lru_cache(maxsize=16)
def _depth(cfg: DepthConfig) -> DepthResult:
    return simulate_depth(cfg)


def _depth_run(look: Look) -> tuple[DepthConfig, DepthResult]:
    """The stack the page runs, from its controls (pages/8_depth_and_drift.py)."""
    cfg = DepthConfig(
        n_layers=int(look.value("depth_layers", 30)),
        width=int(look.value("depth_width", 128)),
        gain=float(look.value("depth_gain", 1.0)),
        activation=str(look.value("depth_act", "tanh")),
        residual=bool(look.value("depth_residual", False)),
        norm=str(look.value("depth_norm", "none")),
        placement=str(look.value("depth_placement", DEFAULT_PLACEMENT)),
        batch=32,
        seed=int(look.value("depth_seed", 0)),
    )
    return cfg, _depth(cfg)


def _deep(look: Look) -> str | None:
    if int(look.value("depth_layers", 30)) != 100:
        return None
    cfg, res = _depth_run(look)
    return (
        f"At L = 100 with {NORM_NAMES[cfg.norm]}, the page's verdict — activations: {res.status}; "
        f"backward pass: {res.grad_status}."
    )


def _normed(look: Look) -> str | None:
    if look.value("depth_norm", "none") != "layernorm":
        return None
    cfg, res = _depth_run(look)
    bare = _depth(dataclasses.replace(cfg, norm="none"))
    return (
        f"With LayerNorm in each of the {cfg.n_layers} layers — activations: {res.status}; backward pass: "
        f"{res.grad_status}. The same stack without normalization — activations: {bare.status}; backward "
        f"pass: {bare.grad_status}."
        + (
            " LayerNorm holds the activations to one scale layer after layer; how the gradients fare depends "
            "on the rest of the stack too (try the residual connections)."
            if res.status.startswith("stable")
            else ""
        )
    )


@functools.cache
def _site_stats() -> SiteStats:
    return site_stats(recording())


def _site(look: Look) -> str | None:
    site = _moved(look, "tf_site", None)
    if site is None:
        return None
    s = _site_stats()
    i = int(np.clip(int(site), 0, len(s.labels) - 1))
    largest = float(s.x_hat_absmax[i])
    largest_text = fmt(largest, digits_to_separate([largest], against=[CEILING]))  # as the page prints it
    return (
        f"At {s.labels[i]} the largest |x| going in is {_num(float(s.in_absmax[i]))}, and the median |x| "
        f"{_num(float(s.in_abs_median[i]), 3)}; after normalizing, the largest |x̂| is {largest_text}. Each "
        "site has its own scale going in; x̂ has mean 0 and spread about 1 at every one, before γ and β "
        "rescale it."
    )


# --- what models since 2024 do --------------------------------------------------------------------


def _dyt(look: Look) -> str | None:
    alpha = _moved(look, "now_alpha", None)
    if alpha is None:
        return None
    site, sentence = int(look.value("now_site", 2)), int(look.value("now_sentence", 1))
    frame = dyt.frame(site, sentence, float(alpha))

    def shown(label: str) -> str:
        return _shown(frame, dyt.READOUT, label)

    return (
        f"α = {dyt.alpha_text(float(alpha))}: the curve g·tanh(αx) + b, with g and b fitted, follows "
        f"LayerNorm's x̂ here with r² {shown('r² with your α')}. The best α for these points, "
        f"{shown('best α')}, reaches r² {shown('r², best α')}, and a straight line "
        f"{shown('r², a straight line')}. "
        "A tanh treats each value alone; LayerNorm divides every feature of a token by that token's own σ."
    )


def _quiz_say(look: Look) -> str:
    return (
        f"{len(make_quiz(0))} questions on all of it, each with its explanation. Answer a few, then press "
        "*Finish the tour*; every page stays open to go back to."
    )


STOPS: tuple[Stop, ...] = (
    Stop(
        "",
        "Start",
        "LayerNorm in one line",
        "LayerNorm(x) = γ ⊙ (x − μ) / √(σ² + ε) + β takes the d numbers of one token and gives back d "
        "numbers: it subtracts their mean μ, divides by their spread √(σ² + ε), then scales by γ and shifts "
        "by β. The tour takes the formula one term at a time, shows why deep networks need it, looks "
        "inside a real transformer and at what models since 2024 do, and ends with the quiz. At most steps "
        "there is one control to use, outlined in orange; Next is always there.",
    ),
    Stop(
        "mean",
        "The formula",
        "μ: where the vector sits",
        "μ is the mean of the d features. Move **Add the same number c to every feature** away from 0 "
        "(drag it, or use the arrow keys) and watch μ and x − μ.",
        target="mean_shift_live",
        watch="mean_shift",
        done=_mean_shift,
    ),
    Stop("mean", "The formula", "One feature, one d-th of μ", _bars_say, target=mean.CHART_X, done=_mean_bar),
    Stop(
        "variance",
        "The formula",
        "σ²: how spread out it is",
        "σ² is the mean of the squared distances from μ. Move **Stretch: multiply every feature by a** "
        "away from 1 and watch σ² and the chart of the squared distances below it.",
        target="var_scale_live",
        watch="var_scale",
        done=_stretch,
    ),
    Stop(
        "standardize",
        "The formula",
        "x̂, and what ε is for",
        _spread_say,
        target="std_spread_live",
        done=_spread,
    ),
    Stop("standardize", "The formula", "ε for your own vector", _eps_say, target="eps_live", done=_eps),
    Stop(
        "scale_shift",
        "The formula",
        "γ and β can undo it",
        _undo_say,
        target="ss_undo",
        done=_undo,
    ),
    Stop(
        "scale_shift",
        "The formula",
        "One γ, β for every token",
        "A LayerNorm has one γ and one β for all the tokens that pass through it. Under *One γ, β for a "
        "whole sentence*, pick another token in **Undo for token**: γ and β become that token's σ and μ.",
        target="ss_many_token",
        watch="ss_many_token",
        done=_many,
    ),
    Stop(
        "full_formula",
        "The formula",
        "Every term in one place",
        _gamma_say,
        target=_gamma_target,
        watch="gamma",
        done=_gamma,
    ),
    Stop(
        "which_axis",
        "Layer versus batch",
        "Which numbers share a μ?",
        "One tensor of B sequences × T tokens × d features. LayerNorm takes μ and σ² over the d features "
        "of one token; BatchNorm over one feature across every token of the batch. Set **Highlight the "
        "cells that share statistics under** to BatchNorm.",
        target="axes_lens",
        done=_lens,
    ),
    Stop(
        "train_vs_inference",
        "Layer versus batch",
        "Training, then inference",
        "BatchNorm's μ and σ² come from the batch, which a model serving one request at a time does not "
        "have. Under *2 · Switch to inference*, set **Mode** to Inference.",
        target="tvi_mode",
        done=_inference,
    ),
    Stop(
        "depth_and_drift",
        "Why normalize",
        "A hundred layers deep",
        "A batch of random vectors goes through L random layers, and the charts follow their spread "
        "layer by layer. Raise **Layers L** to 100.",
        target="depth_layers",
        done=_deep,
    ),
    Stop(
        "depth_and_drift",
        "Why normalize",
        "Deep, with LayerNorm",
        "Now choose **LayerNorm** under *Normalization*.",
        target="depth_norm",
        done=_normed,
    ),
    Stop(
        "learning_rate",
        "Why normalize",
        "Larger learning rates",
        "The same small network, trained with and without LayerNorm at nine learning rates from 0.001 to 10, "
        "from several starting weights. In the map, cells marked ✗ blew up; the metrics under it give "
        "the largest learning rate at which no run of each network blew up. Nothing to do here but read "
        "them.",
        target="lr_map",
    ),
    Stop(
        "inside_a_transformer",
        "A real transformer",
        "Inside MiniLM",
        "These are real vectors from MiniLM, a small transformer: the residual stream entering each of "
        "its LayerNorms. Pick another site under **Look at one site**.",
        target="tf_site",
        watch="tf_site",
        done=_site,
    ),
    Stop(
        "normalization_now",
        "After 2024",
        "A tanh in place of LayerNorm",
        "Some models since 2024 drop LayerNorm's μ and σ: DyT puts γ ⊙ tanh(α·x) + β in its place. The "
        "chart plots a MiniLM LayerNorm's input against its output x̂, one point per feature of each "
        "word-piece. Move **α of DyT** and watch the curve and its r² follow.",
        target="now_alpha_live",
        watch="now_alpha",
        done=_dyt,
    ),
    Stop("quiz", "Test yourself", "The quiz", _quiz_say),
)
