"""Training vs inference: BatchNorm's two modes and LayerNorm's one."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import layernorm as ln
from layernorm.labs import batch_effects
from layernorm.labs import bn_frameworks as BF
from layernorm.labs import running as R
from ui import charts_axes, controls, page, plot
from ui.fragments import page_fragment, rerun_fragments
from ui.text import (
    MESSAGE_LIMIT,
    change_metric,
    digits_to_separate,
    fmt,
    fmt_zero,
    plain,
    rounding_noise,
    tex_num,
    zero_metric,
)

EPS = ln.DEFAULT_EPS
D_CHOICES = [2, 4, 8, 16, 32, 64]
BATCH_OF_ONE = (
    "**A batch of one is undefined for BatchNorm in training.** Each feature's batch then holds a single "
    "number, so the batch mean *is* that number: x − μ_B = 0 for every feature and the output is β "
    "whatever the input. The spread is 0, and the ÷(n−1) variance used for the running update is 0/0. "
    "PyTorch refuses with *“Expected more than 1 value per channel when training”*. LayerNorm has no such "
    "problem: it averages over the token's d features, and one token has d of them."
)


@st.cache_data(max_entries=16)
def _spread(d: int, seed: int, n: int, redraws: int) -> batch_effects.RedrawSpread:
    """Redraws cost n·d·redraws work; cached so other controls stay quick."""
    return batch_effects.redraw_spread(R.make_population(d, seed=seed), n, n_redraws=redraws, fixed_seed=seed, eps=EPS)


page.header(
    "Training vs inference · BatchNorm has two modes, LayerNorm one",
    "BatchNorm needs a batch to know what is typical for a feature. During training it uses the "
    "current batch and quietly keeps a running average of what it saw; at inference, when examples may "
    "come one at a time, it uses that stored average instead. So the same example can come out "
    "differently depending on its batch-mates, on the batch size, and on whether the model is training. "
    "LayerNorm only ever looks at the example itself, so none of this applies to it.",
)


st.latex(
    r"\text{train: }\hat{x} = \frac{x-\mu_B}{\sqrt{\sigma_B^2+\varepsilon}},\quad "
    r"\sigma_B^2=\frac{1}{n}\sum (x-\mu_B)^2 \qquad "
    r"\text{inference: }\hat{x} = \frac{x-\hat\mu}{\sqrt{\hat\sigma^2+\varepsilon}}"
)
st.latex(
    r"\hat\mu \leftarrow (1-m)\,\hat\mu + m\,\mu_B,\qquad "
    r"\hat\sigma^2 \leftarrow (1-m)\,\hat\sigma^2 + m\,\frac{n}{n-1}\,\sigma_B^2"
)

# Seven fragments, one per section: a control reruns only the sections that read it. The settings at the
# top (n, m, d, feature, seed) and the training buttons rerun the sections that use them
# (ui.fragments.rerun_fragments); every other control reruns its own section.
TRAIN, SWITCH, NOISE, MATES, SHIFT = (
    "tvi_train",
    "tvi_switch",
    "tvi_noise",
    "tvi_mates_section",
    "tvi_shift_section",
)
ALL = (TRAIN, SWITCH, NOISE, MATES, SHIFT)  # every section that reads the population (d, seed)
FRAMEWORKS, FUNCTIONAL = "tvi_frameworks", "tvi_functional"  # read only their own controls
PER_FEATURE = (TRAIN, SWITCH, NOISE, MATES)  # the shift test uses its own 128 examples, every feature
WITH_STATE = (TRAIN, SWITCH, SHIFT)  # the sections that show the running statistics


@dataclass(frozen=True)
class Settings:
    """The settings at the top of the page that the other sections read (momentum only trains)."""

    n: int
    d: int
    k: int
    seed: int

    @property
    def pop(self) -> R.Population:
        return R.make_population(self.d, seed=self.seed)


def settings() -> Settings:
    """The top settings from Session State (the training section, which draws them, runs first)."""
    get = st.session_state.get
    return Settings(
        int(get("tvi_n", 16)), int(get("tvi_d", 8)),
        int(get("tvi_feature", 0)), int(get("tvi_seed", 0)),
    )  # fmt: skip


def running_state(d: int) -> R.RunningState:
    """The running statistics after the batches trained so far (the training section keeps them)."""
    history: list[R.TrainStep] = st.session_state.get("tvi_history", [])
    return history[-1].after if history else R.initial_state(d)


@page_fragment(key=TRAIN)
def train_section() -> None:
    with st.container(border=True):
        c1, c2, c3, c4, c5 = st.columns(5)
        n = int(
            controls.slider(
                "Batch size n", 1, R.MAX_BATCH, 16, 1, key="tvi_n", where=c1, name="n",
                on_change=rerun_fragments, args=PER_FEATURE,
            )
        )  # fmt: skip
        m = float(
            controls.slider(
                "Momentum m (PyTorch)", 0.0, 1.0, 0.1, 0.01, key="tvi_momentum", where=c2, name="m"
            )
        )  # its own section only: the running statistics change with the next batch, not with m
        c2.caption(f"Keras calls the same setting momentum = {1 - m:.2f} (it weights the old value).")
        d = int(
            controls.select_slider(
                "Features d",
                D_CHOICES,
                8,
                key="tvi_d",
                where=c3,
                name="d",
                on_change=rerun_fragments,
                args=ALL,
            )
        )
        k = controls.number_input(
            "Feature to follow", 0, d - 1, 0, key="tvi_feature", where=c4, name="feature",
            on_change=rerun_fragments, args=PER_FEATURE,
        )  # fmt: skip
        seed = controls.number_input(
            "Seed", 0, 9999, 0, key="tvi_seed", where=c5, name="seed", on_change=rerun_fragments, args=ALL
        )

    pop = R.make_population(d, seed=seed)
    # The running state belongs to one population: a new d or seed starts training afresh.
    if st.session_state.get("tvi_config") != (d, seed) or "tvi_history" not in st.session_state:
        if st.session_state.get("tvi_history"):
            st.toast(
                "New d or seed: a new population, so training starts again from μ̂ = 0, σ̂² = 1.", icon="🔄"
            )
        st.session_state["tvi_config"] = (d, seed)
        st.session_state["tvi_history"] = []  # list of TrainStep, oldest first
    history: list[R.TrainStep] = st.session_state["tvi_history"]
    state = history[-1].after if history else R.initial_state(d)

    # --- training ---------------------------------------------------------------------------------
    st.subheader("1 · Training: step through batches")
    if m == 0:
        st.caption(
            "With momentum 0 the running statistics never move: they keep the values they have now (0 and 1 "
            "before any training) however long you train."
        )
    b1, b2, b3, b4 = st.columns([2, 2, 2, 2], vertical_alignment="bottom")

    def _request(what: str) -> None:
        """Button callbacks record the request; the section acts on it, then the others show the result."""
        st.session_state["tvi_request"] = what
        rerun_fragments(*WITH_STATE)

    b1.button(
        "Next batch", key="tvi_next", disabled=n == 1, type="primary", on_click=_request, args=("next",)
    )
    auto_steps = int(
        controls.select_slider("Auto-run length", [10, 25, 50, 100, 200], 50, key="tvi_auto_steps", where=b2)
    )
    b3.button(f"Auto-run {auto_steps}", key="tvi_auto", disabled=n == 1, on_click=_request, args=("auto",))
    b4.button("Reset training", key="tvi_reset", on_click=_request, args=("reset",))
    st.caption(
        "The page's link carries these settings, not the batches trained: opened elsewhere, it starts at batch 0."
    )
    request = st.session_state.pop("tvi_request", None)
    next_clicked, auto_clicked = request == "next", request == "auto"
    if request == "reset":
        history.clear()
        state = R.initial_state(d)
    if n == 1:
        st.error(BATCH_OF_ONE, icon="⚠️")
        try:  # the core says the same thing; show its words too
            R.train_step(state, pop, n, momentum=m, seed=seed, eps=EPS)
        except ValueError as exc:
            st.caption(f"The core's message: {plain(exc, MESSAGE_LIMIT)}")
    elif next_clicked or auto_clicked:
        total = 1 if next_clicked else auto_steps
        bar = st.progress(0.0, text="Training…") if auto_clicked else None
        for j in range(total):
            step = R.train_step(state, pop, n, momentum=m, seed=seed, eps=EPS)
            if history:  # keep only the numbers the charts need from older batches (memory)
                history[-1] = replace(history[-1], batch=history[-1].batch[:2], y=history[-1].y[:2])
            history.append(step)
            state = step.after
            if bar is not None:
                bar.progress((j + 1) / total, text=f"Training: batch {j + 1} of {total}")
                time.sleep(0.01)  # slow enough to watch the bar move in class
        if bar is not None:
            bar.empty()

    # The running statistics next to the true ones: enough digits that different values never look equal
    pairs = ((state.running_mean[k], pop.mean[k]), (state.running_var[k], pop.var[k]))
    mean_digits, var_digits = (digits_to_separate(p, same_within=rounding_noise(p)) for p in pairs)
    if history:
        last = history[-1]
        steps = np.array([h.after.step for h in history])
        # Per statistic: its running value and each batch's own after every step, the true value.
        charted = (
            ("mean", "tvi_chart_mean", [(h.after.running_mean[k], h.batch_mean[k]) for h in history],
             pop.mean[k], mean_digits),
            ("variance", "tvi_chart_var", [(h.after.running_var[k], h.batch_var_unbiased[k]) for h in history],
             pop.var[k], var_digits),
        )  # fmt: skip
        for column, (what, key, values, true, digits) in zip(st.columns(2), charted, strict=True):
            running, batch = np.array(values).T
            fig = charts_axes.running_chart(steps, running, batch, float(true), what=what, feature=k, digits=digits)
            plot.show(fig, key=key, where=column)
        st.caption(
            "Small dots: each batch's own value. Orange line: the running estimate, stored for inference "
            "(a single orange dot after the first batch). Dashes: the true value of the whole population."
        )
        n_last = last.batch.shape[0]
        st.markdown(f"**The variance detail, feature {k}, batch {last.after.step}** (n = {n_last}):")
        shown = [
            last.batch_var[k],
            last.batch_var_unbiased[k],
            last.before.running_var[k],
            last.after.running_var[k],
        ]
        dd = digits_to_separate(shown, same_within=rounding_noise(shown))  # ÷n vs ÷(n−1), old vs new
        st.latex(
            rf"\sigma_B^2 = \tfrac{{1}}{{n}}\textstyle\sum = {tex_num(last.batch_var[k], dd)}\ \text{{(normalizes)}}"
            rf"\qquad \tfrac{{n}}{{n-1}}\sigma_B^2 = {tex_num(last.batch_var_unbiased[k], dd)}\ \text{{(is stored)}}"
        )
        st.latex(
            rf"\hat\sigma^2 \leftarrow (1-{tex_num(last.momentum)})\cdot {tex_num(last.before.running_var[k], dd)}"
            rf" + {tex_num(last.momentum)}\cdot {tex_num(last.batch_var_unbiased[k], dd)}"
            rf" = {tex_num(last.after.running_var[k], dd)}"
        )
    else:
        st.info(
            "No training yet: the running mean starts at 0 and the running variance at 1 (PyTorch's "
            "initial values). Press **Next batch** or **Auto-run**.",
            icon="ℹ️",
        )
    m1, m2, m3 = st.columns(3)
    m1.metric("batches seen", state.step)
    m2.metric(f"running mean, feature {k}", fmt(state.running_mean[k], mean_digits))
    m3.metric(f"running variance, feature {k}", fmt(state.running_var[k], var_digits))
    st.caption(
        f"The true values for feature {k}: mean {fmt(pop.mean[k], mean_digits)}, "
        f"variance {fmt(pop.var[k], var_digits)}."
    )


@page_fragment(key=SWITCH)
def switch_section() -> None:
    s = settings()
    n, k, seed = s.n, s.k, s.seed
    pop = s.pop
    state = running_state(s.d)
    st.subheader("2 · Switch to inference")
    mode = controls.choice("segmented_control", "Mode", ["Training", "Inference"], key="tvi_mode")
    mates_draw = int(st.session_state.get("tvi_mates_draw", 0))
    if n == 1 and mode == "Training":
        first = ln.layer_norm(R.draw_batch(pop, 1, seed=(seed, 0)))[0][:4]
        first_digits = digits_to_separate(first, 3)
        st.warning(
            "Training mode needs a batch of at least 2 (see above). LayerNorm of the example: "
            + ", ".join(fmt(v, first_digits) for v in first)
            + " …",
            icon="⚠️",
        )
    else:
        x0, bn_train, ln_y = batch_effects.batch_mates(pop, max(n, 2), fixed_seed=seed, mates_seed=mates_draw, eps=EPS)
        running = (state.running_mean, state.running_var)
        bn_eval = ln.batch_norm_eval(x0[None, :], None, None, *running, eps=EPS)[0]
        bn_y = bn_train if mode == "Training" else bn_eval
        uses = (
            "this batch's μ_B and σ²_B" if mode == "Training" else "the running μ̂ and σ̂² stored in training"
        )
        # the two modes' outputs never look alike (LayerNorm keeps its own 4 digits: it must not seem to move)
        bn_pair = (bn_train[k], bn_eval[k])
        bn_digits = digits_to_separate(bn_pair, same_within=rounding_noise(bn_pair))
        c1, c2, c3 = st.columns(3)
        c1.metric(f"input x, feature {k}", fmt(x0[k]))
        c2.metric(f"BatchNorm ({mode.lower()})", fmt(bn_y[k], bn_digits), help=f"Uses {uses}.")
        c3.metric("LayerNorm (both modes)", fmt(ln_y[k]))
        if n == 1:  # inference on a single example: fine; its training value does not exist
            st.markdown(
                f"In **inference** mode BatchNorm uses {uses}, so a single example works: "
                f"{fmt(bn_eval[k], bn_digits)}. In training mode the same example alone has no BatchNorm output "
                f"(n = 1). LayerNorm gives {fmt(ln_y[k])} either way, because it has no mode."
            )
        else:
            st.markdown(
                f"In **{mode.lower()}** mode BatchNorm uses {uses}. Switching modes changes its output for this "
                f"example from {fmt(bn_train[k], bn_digits)} (training) to {fmt(bn_eval[k], bn_digits)} (inference); LayerNorm gives "
                f"{fmt(ln_y[k])} in both, because it has no mode."
            )


@page_fragment(key=NOISE)
def noise_section() -> None:
    s = settings()
    n, d, k, seed = s.n, s.d, s.k, s.seed
    st.subheader("3 · Small batches give noisy statistics")
    redraws = int(
        controls.slider("Redraws of the batch-mates", 20, 500, 200, 10, key="tvi_redraws", name="redraws")
    )
    if n == 1:  # the reason is in section 1's message: said once per page
        st.info(
            "No spread to show at n = 1: BatchNorm in training has no output for a batch of one (section 1). "
            "Raise the batch size n to 2 or more.",
            icon=":material/info:",
        )
    else:
        spread = _spread(d, seed, n, redraws)
        plot.show(
            charts_axes.redraw_chart(spread.bn_y[:, k], float(spread.ln_y[0, k]), n), key="tvi_chart_spread"
        )
        s1, s2 = st.columns(2)
        s1.metric(f"spread (std) of BatchNorm's output, feature {k}", fmt(spread.bn_std[k]))
        s2.metric("spread of LayerNorm's output", fmt(spread.ln_std[k]))
        st.caption(
            "Raise n: the histogram narrows roughly like 1/√n. At n = 2 BatchNorm's output is about ±1 "
            "whatever the values: two numbers always standardize to −1 and +1."
        )


def _redraw_mates() -> None:
    """The batch-mates button: a new draw, shown in section 2 (its example's batch) and section 4."""
    st.session_state["tvi_mates_draw"] = int(st.session_state.get("tvi_mates_draw", 0)) + 1
    rerun_fragments(SWITCH, MATES)


@page_fragment(key=MATES)
def mates_section() -> None:
    s = settings()
    n, k, seed = s.n, s.k, s.seed
    pop = s.pop
    mates_draw = int(st.session_state.get("tvi_mates_draw", 0))
    st.subheader("4 · Batch-mates")
    st.button(
        "Redraw the other examples in the batch", key="tvi_mates", disabled=n == 1, on_click=_redraw_mates
    )
    st.caption(
        f"Draw {int(st.session_state.get('tvi_mates_draw', 0))} of the batch-mates. A link does not carry "
        "redraws: opened elsewhere, the page starts at draw 0."
    )
    if n == 1:
        st.info("With n = 1 there are no batch-mates, and training BatchNorm is undefined.", icon="ℹ️")
    else:
        _, bn_now, ln_now = batch_effects.batch_mates(pop, n, fixed_seed=seed, mates_seed=mates_draw, eps=EPS)
        _, bn_before, ln_before = batch_effects.batch_mates(
            pop, n, fixed_seed=seed, mates_seed=max(mates_draw - 1, 0), eps=EPS
        )
        t1, t2 = st.columns(2)
        for col, name, now, before in (
            (t1, "BatchNorm", bn_now, bn_before),
            (t2, "LayerNorm", ln_now, ln_before),
        ):
            col.metric(
                f"{name}, feature {k} (draw {mates_draw})",
                fmt(now[k]),
                **(change_metric(now[k] - before[k]) if mates_draw else {}),
            )
        st.caption("Your example stays the same; only the other rows of the batch are redrawn.")


@page_fragment(key=SHIFT)
def shift_section() -> None:
    s = settings()
    seed = s.seed
    pop = s.pop
    state = running_state(s.d)
    st.subheader("5 · Distribution shift at test time")
    c1, c2 = st.columns(2)
    shift = float(
        controls.slider(
            "Shift every feature's mean by", -5.0, 5.0, 2.0, 0.5, key="tvi_shift", where=c1, name="shift"
        )
    )
    scale = float(
        controls.slider(
            "Multiply every feature's spread by",
            0.25,
            4.0,
            1.0,
            0.25,
            key="tvi_scale",
            where=c2,
            name="spread",
        )
    )
    res = batch_effects.shift_test(state, pop, shift=shift, scale=scale, n=128, seed=seed, eps=EPS)
    if state.step == 0:
        st.warning(
            "BatchNorm has not been trained yet, so its running statistics are still 0 and 1: "
            "train a few batches in section 1 first.",
            icon="⚠️",
        )
    # LayerNorm's output mean is 0 in exact arithmetic: what is left is rounding, and it says so
    shift_texts = [fmt(res.bn_mean), fmt(res.bn_std), fmt_zero(res.ln_mean, res.ln_y), fmt(res.ln_std)]
    plot.show(
        charts_axes.shift_chart(res.bn_mean, res.bn_std, res.ln_mean, res.ln_std, labels=shift_texts),
        key="tvi_chart_shift",
    )
    r1, r2, r3, r4 = st.columns(4)
    r1.metric("BatchNorm output mean", shift_texts[0])
    r2.metric("BatchNorm output std", shift_texts[1])
    r3.metric("LayerNorm output mean", **zero_metric(res.ln_mean, res.ln_y))  # "0", grey "to rounding"
    r4.metric("LayerNorm output std", shift_texts[3])
    st.caption(
        "128 test examples from the shifted distribution. BatchNorm normalizes them with the running "
        "statistics of the *training* data; LayerNorm with each example's own features."
    )


# Section 6's batches of one feature (a row per example): the worked example x = 1, 2, 3, 4 first
FW_BATCHES = {
    "1, 2, 3, 4": [[1.0], [2.0], [3.0], [4.0]],
    "2, 6": [[2.0], [6.0]],
    "1, 2, …, 8": [[float(v)] for v in range(1, 9)],
    "0, 0, 0, 8": [[0.0], [0.0], [0.0], [8.0]],
}
FN_CALLS = {
    False: "F.batch_norm(x, rm, rv): training defaults to False",
    True: "F.batch_norm(x, rm, rv, training=True)",
}
FW_START = (0.0, 1.0)  # section 6's running mean and variance before the batch (every framework's start)
FN_X, FN_RM, FN_RV = [[2.0], [6.0]], [0.0], [1.0]  # section 7: two examples, one feature


def _names(names: list[str]) -> str:
    """The names as a list in words: "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _spelling(rows: dict[str, BF.RunningUpdate], weights_batch: bool) -> str:
    """The frameworks that spell momentum one way, and the momentum they need here."""
    names = [f for f, r in rows.items() if r.framework.momentum_weights_batch == weights_batch]
    return f"momentum = {fmt(rows[names[0]].momentum)} in {_names(names)}"  # one value per spelling


def _frameworks_sentence(u: BF.RunningUpdate, rows: dict[str, BF.RunningUpdate], dd: int) -> str:
    """What the chosen framework stored and why, from the core's numbers."""
    name = u.framework.name
    same = f"This weight on the batch is {_spelling(rows, True)} and {_spelling(rows, False)}."
    if u.batch_weight == 0:
        return (
            f"{name}'s momentum = {fmt(u.momentum)} puts no weight on the batch: every framework keeps the "
            f"running variance it had, {fmt(u.new_running_var[0], dd)}. {same} The same number in the other "
            "spelling means the opposite."
        )
    other = next(r for r in rows.values() if r.framework.unbiased != u.framework.unbiased)
    others = _names([f for f, r in rows.items() if r.framework.unbiased == other.framework.unbiased])
    return (
        f"{name}'s momentum = {fmt(u.momentum)} puts weight {fmt(u.batch_weight)} on this batch and blends "
        f"in its variance {'÷(n−1)' if u.framework.unbiased else '÷n'} = {fmt(u.blended_var[0], dd)}, so it "
        f"stores {fmt(u.new_running_var[0], dd)}. At the same weight {others} store "
        f"{fmt(other.new_running_var[0], dd)}: the ÷(n−1) variance ({fmt(u.batch_var_unbiased[0], dd)}) is "
        f"larger than the ÷n one ({fmt(u.batch_var[0], dd)}) for every batch with a spread. {same}"
    )


@page_fragment(key=FRAMEWORKS)
def frameworks_section() -> None:
    st.subheader("6 · What the running variance stores: four frameworks")
    st.markdown(
        "Every framework normalizes a training batch with its ÷n variance, but they disagree on what "
        f"they store for inference, and on what *momentum* means. Start from running mean {fmt(FW_START[0])} "
        f"and variance {fmt(FW_START[1])}, train on one batch of one feature, and compare."
    )
    c1, c2, c3 = st.columns([3, 2, 2])
    name = controls.choice(
        "segmented_control", "Framework", list(BF.FRAMEWORKS), key="tvi_framework", where=c1
    )
    batch = controls.choice(
        "selectbox", "Batch x (one feature)", list(FW_BATCHES), key="tvi_fw_batch", where=c2
    )
    m = float(
        controls.slider(
            "momentum, as the framework spells it", 0.0, 1.0, 1.0, 0.01, key="tvi_fw_momentum", where=c3,
            name="framework momentum",
        )
    )  # fmt: skip  # one label for every framework: the slider keeps its value when the framework changes
    rows = BF.running_updates(FW_BATCHES[batch], *FW_START, framework_name=name, momentum=m)
    u = rows[name]
    weights_what = "the batch" if u.framework.momentum_weights_batch else "the old value"
    c3.caption(f"{name}'s momentum weights {weights_what}; its default is {fmt(u.framework.default_momentum)}.")
    shown = [u.batch_var[0], u.batch_var_unbiased[0], FW_START[1], *(r.new_running_var[0] for r in rows.values())]
    dd = digits_to_separate(shown, 5, same_within=rounding_noise(shown))  # 5: 1.6667 as PyTorch prints it
    old_w, new_w = ("(1-m)", "m") if u.framework.momentum_weights_batch else ("m", "(1-m)")
    div = "n-1" if u.framework.unbiased else "n"
    st.latex(
        rf"\hat\sigma^2 \leftarrow {old_w}\,\hat\sigma^2 + {new_w}\,s^2,\qquad "
        rf"s^2 = \tfrac{{1}}{{{div}}}\textstyle\sum (x-\mu_B)^2 = {tex_num(u.blended_var[0], dd)}"
    )
    st.latex(
        rf"\hat\sigma^2 = {tex_num(u.old_weight)}\cdot {tex_num(FW_START[1], dd)} + {tex_num(u.batch_weight)}"
        rf"\cdot {tex_num(u.blended_var[0], dd)} = {tex_num(u.new_running_var[0], dd)}"
    )
    m1, m2, m3 = st.columns(3)
    m1.metric("batch variance ÷n (normalizes)", fmt(u.batch_var[0], dd))
    m2.metric("batch variance ÷(n−1)", fmt(u.batch_var_unbiased[0], dd))
    m3.metric(f"running variance {name} stores", fmt(u.new_running_var[0], dd))
    table = {
        "framework": [f"{f} ({r.framework.spelled})" for f, r in rows.items()],
        "momentum for the same weight": [fmt(r.momentum) for r in rows.values()],
        "blends in": ["÷(n−1)" if r.framework.unbiased else "÷n" for r in rows.values()],
        "stored running variance": [fmt(r.new_running_var[0], dd) for r in rows.values()],
    }
    st.table(pd.DataFrame(table).set_index("framework"))
    st.caption(
        "TensorFlow's non-fused path (tf.keras with fused=False) stores ÷n as Keras 3 does. Measured in "
        "PyTorch 2.13: BatchNorm1d(1, momentum=1.0) on x = 1, 2, 3, 4 stores running_var 1.6666666 (float32); "
        "the lab computes in float64."
    )
    st.markdown(_frameworks_sentence(u, rows, dd))


@page_fragment(key=FUNCTIONAL)
def functional_section() -> None:
    st.subheader("7 · F.batch_norm: training defaults to False")
    st.markdown(
        "A `torch.nn.BatchNorm1d` module starts in training mode. The functional form "
        "`torch.nn.functional.batch_norm` does not: its `training` argument defaults to `False`, so a call "
        "that leaves it out normalizes with the running statistics and never updates them. Here "
        f"x = [[{fmt(FN_X[0][0])}], [{fmt(FN_X[1][0])}]] (two examples, one feature), rm = [{fmt(FN_RM[0])}], "
        f"rv = [{fmt(FN_RV[0])}], momentum {fmt(ln.DEFAULT_MOMENTUM)}, ε = {fmt(EPS, 1)}."
    )
    training = controls.choice("radio", "The call", FN_CALLS, key="tvi_fn_call", name="call")
    call = BF.functional_batch_norm(FN_X, FN_RM, FN_RV, training=training, eps=EPS)
    x = [row[0] for row in FN_X]
    y = call.y[:, 0]
    # ε shows in the 6th digit: 1.99999 and −0.99999875, not 2 and −1
    yd = digits_to_separate(y, 8, against=x)
    c1, c2, c3, c4 = st.columns(4)
    for col, xi, yi in ((c1, x[0], y[0]), (c2, x[1], y[1])):
        col.metric(f"output for x = {fmt(xi)}", fmt(yi, yd))
    for col, what, before, after in (
        (c3, "mean", FN_RM[0], call.running_mean[0]),
        (c4, "variance", FN_RV[0], call.running_var[0]),
    ):
        col.metric(f"running {what} after", fmt(after), **change_metric(after - before))
    if call.moved:
        st.markdown(
            f"With `training=True` the call normalizes with the batch's own mean {fmt(ln.mean(x))} and ÷n "
            f"variance {fmt(ln.variance(x))}, giving {fmt(y[0], yd)} and {fmt(y[1], yd)}, and **updates the "
            f"running statistics in place**: mean {fmt(FN_RM[0])} → {fmt(call.running_mean[0])}, variance {fmt(FN_RV[0])} → "
            f"{fmt(call.running_var[0])} (blending in the ÷(n−1) variance {fmt(ln.variance(x, ddof=1))}). "
            "This is what the module does while it is in training mode."
        )
    else:
        st.markdown(
            f"Left out, `training` is `False`: the call normalizes with the running statistics {fmt(FN_RM[0])} "
            f"and {fmt(FN_RV[0])}, "
            f"so the output is x/√(1 + ε) = {fmt(y[0], yd)} and {fmt(y[1], yd)}, and "
            f"**the running statistics did not move**: still {fmt(call.running_mean[0])} and "
            f"{fmt(call.running_var[0])}. A training loop written with `F.batch_norm` must pass "
            "`training=True` itself, or the statistics stay at their initial values."
        )


train_section()
switch_section()
noise_section()
mates_section()
shift_section()
frameworks_section()
functional_section()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "Small momentum: the running mean moves slowly and smoothly; momentum 1 copies the last batch's "
        "statistics, noise and all.",
        "The running variance is stored with ÷(n−1) but each batch is normalized with ÷n — visible at small n.",
        "Batch size 2: BatchNorm's training output is always about ±1, whatever the data.",
        "Shift the test data: BatchNorm's outputs drift off mean 0 / std 1; LayerNorm's stay put.",
        "PyTorch and TensorFlow's fused kernel store the ÷(n−1) batch variance, Keras 3 and Flax the ÷n one; "
        "PyTorch's momentum weights the batch, theirs the old value.",
        "F.batch_norm(x, rm, rv) without training=True uses the running statistics and never updates them.",
    ]
)
page.predict_then_reveal(
    "tvi_q",
    "You serve a trained transformer one sentence at a time. Which normalization behaves exactly as in training?",
    ["BatchNorm", "LayerNorm", "Both", "Neither"],
    1,
    "LayerNorm computes the same per-token statistics in training and inference; BatchNorm switches "
    "from batch statistics to stored running ones.",
)
page.show_source(
    R.train_step, ln.batch_norm_train, ln.batch_norm_eval, batch_effects.shift_test, BF.running_update,
    BF.functional_batch_norm,
)  # fmt: skip
