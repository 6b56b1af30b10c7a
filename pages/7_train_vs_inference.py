"""Training vs inference: BatchNorm's two modes and LayerNorm's one."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import streamlit as st

import layernorm as ln
from layernorm.labs import batch_effects
from layernorm.labs import bn_frameworks as BF
from layernorm.labs import running as R
from ui import batch_effects_view as ev
from ui import bn_frameworks_view as bv
from ui import charts_axes, controls, page, plot, session
from ui import running_view as rv
from ui.fragments import page_fragment, rerun_fragments
from ui.text import (
    MESSAGE_LIMIT,
    change_metric,
    fmt,
    plain,
)

EPS = ln.DEFAULT_EPS
D_CHOICES = [2, 4, 8, 16, 32, 64]


@st.cache_data(max_entries=16)
def _spread(d: int, seed: int, n: int, redraws: int) -> batch_effects.RedrawSpread:
    """Redraws cost n·d·redraws work; cached so other controls stay quick."""
    return batch_effects.redraw_spread(
        R.make_population(d, seed=seed), n, n_redraws=redraws, fixed_seed=seed, eps=EPS
    )


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


def settings() -> rv.Settings:
    """The top settings from Session State (the training section, which draws them, runs first)."""
    return rv.Settings.read(session.widgets.get)


def running_state(d: int) -> R.RunningState:
    """The running statistics after the batches trained so far (the training section keeps them)."""
    history: list[R.TrainStep] = session.pages.tvi_history.get()
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
    if session.pages.tvi_config.get() != (d, seed) or not session.pages.tvi_history.present():
        if session.pages.tvi_history.get():
            st.toast(
                "New d or seed: a new population, so training starts again from μ̂ = 0, σ̂² = 1.", icon="🔄"
            )
        session.pages.tvi_config.set((d, seed))
        session.pages.tvi_history.set([])
    history: list[R.TrainStep] = session.pages.tvi_history.kept()
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
        session.pages.tvi_request.set(what)
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
    request = session.pages.tvi_request.pop()
    next_clicked, auto_clicked = request == "next", request == "auto"
    if request == "reset":
        history.clear()
        state = R.initial_state(d)
    if n == 1:
        st.error(rv.BATCH_OF_ONE, icon="⚠️")
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

    if history:
        steps = np.array([h.after.step for h in history])
        for column, key, (what, running, batch, true), digits in zip(
            st.columns(2), ("tvi_chart_mean", "tvi_chart_var"), rv.charted(history, pop, k),
            rv.running_digits(state, pop, k), strict=True,
        ):  # fmt: skip
            fig = charts_axes.running_chart(steps, running, batch, true, what=what, feature=k, digits=digits)
            plot.show(fig, key=key, where=column)
        st.caption(rv.CHART_NOTE)
        heading, *formulas = rv.variance_detail(history[-1], k)
        st.markdown(heading)
        for formula in formulas:
            st.latex(formula)
    else:
        st.info(rv.NOT_TRAINED, icon="ℹ️")
    metrics, true_values = rv.running_metrics(state, pop, k)
    for col, (label, value) in zip(st.columns(3), metrics, strict=True):
        col.metric(label, value)
    st.caption(true_values)


@page_fragment(key=SWITCH)
def switch_section() -> None:
    s = settings()
    n, k, seed = s.n, s.k, s.seed
    pop = s.pop
    state = running_state(s.d)
    st.subheader("2 · Switch to inference")
    mode = controls.choice("segmented_control", "Mode", ["Training", "Inference"], key="tvi_mode")
    mates_draw = session.pages.tvi_mates_draw.get()
    if n == 1 and mode == "Training":
        first = ln.layer_norm(R.draw_batch(pop, 1, seed=(seed, 0)))[0][:4]
        st.warning(ev.alone_warning(first), icon="⚠️")
    else:
        x0, bn_train, ln_y = batch_effects.batch_mates(
            pop, max(n, 2), fixed_seed=seed, mates_seed=mates_draw, eps=EPS
        )
        running = (state.running_mean, state.running_var)
        bn_eval = ln.batch_norm_eval(x0[None, :], None, None, *running, eps=EPS)[0]
        metrics, bn_digits = ev.switch_metrics(mode, k, x0, bn_train, bn_eval, ln_y)
        for col, metric in zip(st.columns(3), metrics, strict=True):
            col.metric(**metric)
        st.markdown(ev.switch_sentence(mode, n, bn_train[k], bn_eval[k], ln_y[k], bn_digits))


@page_fragment(key=NOISE)
def noise_section() -> None:
    s = settings()
    n, d, k, seed = s.n, s.d, s.k, s.seed
    st.subheader("3 · Small batches give noisy statistics")
    redraws = int(
        controls.slider("Redraws of the batch-mates", 20, 500, 200, 10, key="tvi_redraws", name="redraws")
    )
    if n == 1:  # the reason is in section 1's message: said once per page
        st.info(ev.NO_SPREAD, icon=":material/info:")
    else:
        spread = _spread(d, seed, n, redraws)
        plot.show(
            charts_axes.redraw_chart(spread.bn_y[:, k], float(spread.ln_y[0, k]), n), key="tvi_chart_spread"
        )
        s1, s2 = st.columns(2)
        s1.metric(f"spread (std) of BatchNorm's output, feature {k}", fmt(spread.bn_std[k]))
        s2.metric("spread of LayerNorm's output", fmt(spread.ln_std[k]))
        st.caption(ev.SPREAD_NOTE)


def _redraw_mates() -> None:
    """The batch-mates button: a new draw, shown in section 2 (its example's batch) and section 4."""
    session.pages.tvi_mates_draw.set(session.pages.tvi_mates_draw.get() + 1)
    rerun_fragments(SWITCH, MATES)


@page_fragment(key=MATES)
def mates_section() -> None:
    s = settings()
    n, k, seed = s.n, s.k, s.seed
    pop = s.pop
    mates_draw = session.pages.tvi_mates_draw.get()
    st.subheader("4 · Batch-mates")
    st.button(
        "Redraw the other examples in the batch", key="tvi_mates", disabled=n == 1, on_click=_redraw_mates
    )
    st.caption(ev.mates_caption(session.pages.tvi_mates_draw.get()))
    if n == 1:
        st.info(ev.NO_MATES, icon="ℹ️")
    else:
        _, bn_now, ln_now = batch_effects.batch_mates(pop, n, fixed_seed=seed, mates_seed=mates_draw, eps=EPS)
        _, bn_before, ln_before = batch_effects.batch_mates(
            pop, n, fixed_seed=seed, mates_seed=max(mates_draw - 1, 0), eps=EPS
        )
        norms = {"BatchNorm": (bn_now, bn_before), "LayerNorm": (ln_now, ln_before)}
        for col, metric in zip(st.columns(2), ev.mates_metrics(k, mates_draw, norms), strict=True):
            col.metric(**metric)
        st.caption(ev.MATES_NOTE)


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
        st.warning(ev.NOT_TRAINED, icon="⚠️")
    plot.show(
        charts_axes.shift_chart(res.bn_mean, res.bn_std, res.ln_mean, res.ln_std, labels=ev.shift_texts(res)),
        key="tvi_chart_shift",
    )
    for col, metric in zip(st.columns(4), ev.shift_metrics(res), strict=True):
        col.metric(**metric)
    st.caption(ev.SHIFT_NOTE)


@page_fragment(key=FRAMEWORKS)
def frameworks_section() -> None:
    st.subheader("6 · What the running variance stores: four frameworks")
    st.markdown(bv.frameworks_intro())
    c1, c2, c3 = st.columns([3, 2, 2])
    name = controls.choice(
        "segmented_control", "Framework", list(BF.FRAMEWORKS), key="tvi_framework", where=c1
    )
    batch = controls.choice(
        "selectbox", "Batch x (one feature)", list(bv.FW_BATCHES), key="tvi_fw_batch", where=c2
    )
    m = float(
        controls.slider(
            "momentum, as the framework spells it", 0.0, 1.0, 1.0, 0.01, key="tvi_fw_momentum", where=c3,
            name="framework momentum",
        )
    )  # fmt: skip  # one label for every framework: the slider keeps its value when the framework changes
    rows = BF.running_updates(bv.FW_BATCHES[batch], *bv.FW_START, framework_name=name, momentum=m)
    u = rows[name]
    c3.caption(bv.momentum_caption(u))
    dd = bv.frameworks_digits(u, rows)
    for line in bv.frameworks_latex(u, dd):
        st.latex(line)
    for col, (label, value) in zip(st.columns(3), bv.frameworks_metrics(u, dd), strict=True):
        col.metric(label, value)
    st.table(bv.frameworks_table(rows, dd))
    st.caption(bv.FRAMEWORKS_NOTE)
    st.markdown(bv.frameworks_sentence(u, rows, dd))


@page_fragment(key=FUNCTIONAL)
def functional_section() -> None:
    st.subheader("7 · F.batch_norm: training defaults to False")
    st.markdown(bv.functional_intro())
    training = controls.choice("radio", "The call", bv.FN_CALLS, key="tvi_fn_call", name="call")
    call = BF.functional_batch_norm(bv.FN_X, bv.FN_RM, bv.FN_RV, training=training, eps=EPS)
    for col, (label, value, change) in zip(st.columns(4), bv.functional_metrics(call), strict=True):
        col.metric(label, value, **(change_metric(change) if change is not None else {}))
    st.markdown(bv.functional_sentence(call))


train_section()
switch_section()
noise_section()
mates_section()
shift_section()
frameworks_section()
functional_section()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(rv.NOTICES)
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
