"""Why normalize: one small network trained step by step, every layer's statistics watched as it learns."""

import streamlit as st

from layernorm.labs.stepping import MAX_STEPS, NORMALIZATIONS, SteppedRun, output_drift, train_stepped
from layernorm.labs.training import D_IN
from ui import charts_depth, charts_training, controls, page, plot, session
from ui.fragments import page_fragment
from ui.text import fmt, fmt_bound
from ui.theme import COLORS

LRS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
TITLES = {"none": "no normalization", "layernorm": "LayerNorm", "batchnorm": "BatchNorm"}
CURVE_STYLE = {
    "none": (COLORS["x"], "solid"),
    "layernorm": (COLORS["x_hat"], "solid"),
    "batchnorm": (COLORS["batch"], "dash"),
}
STATISTICS = {
    "out_std": "std of each layer's output (what the next layer reads)",
    "out_mean": "mean of each layer's output",
    "pre_std": "std of each layer's a = h·W + b (before normalization)",
    "pre_mean": "mean of each layer's a = h·W + b",
    "gamma_mean": "mean of each layer's learned γ",
    "beta_mean": "mean of each layer's learned β",
}
PLAY_EVERY = 0.7  # seconds between two frames while playing
PLAY_STEPS = 5  # steps per frame
WIDTH = 32

page.header(
    "Why normalize · Training, step by step",
    "Depth and drift looked at a network before training; Learning rate showed where training ends. "
    f"Here you watch it happen: the same small network ({D_IN} inputs, ReLU layers of {WIDTH} units, one output) "
    "learns a regression task three times from the same starting weights, without normalization, "
    "with LayerNorm and with BatchNorm after every layer. Step it, or press Play, and watch each "
    "layer's statistics move.",
)


@st.cache_data(show_spinner="Training the three networks…", max_entries=32)
def runs(lr: float, depth: int, seed: int) -> dict[str, SteppedRun]:
    return {
        n: train_stepped(n, lr=lr, depth=depth, width=WIDTH, steps=MAX_STEPS, seed=seed)
        for n in NORMALIZATIONS
    }


def _move(by: int | None) -> None:
    """A step button: forward by ``by`` steps (to the end of the run at most), or back to 0."""
    now = int(session.widgets.get("steps_at", 0))
    session.widgets.set("steps_at", 0 if by is None else min(now + by, MAX_STEPS))


def _toggle_play() -> None:
    session.pages.steps_playing.set(not session.pages.steps_playing.get())


def _since_start(change: float) -> str:
    """A metric's delta: Streamlit reads the sign from a leading ASCII "-" (fmt writes "−")."""
    return f"{'-' if change < 0 else '+'}{fmt(abs(change))} since step 0"


def body(ticking: bool) -> None:
    """The page's section; ``ticking``: drawn by the timed fragment (Play) or the still one."""
    c1, c2, c3 = st.columns(3)
    lr = float(controls.select_slider("Learning rate", LRS, 0.03, key="steps_lr", where=c1))
    depth = int(controls.slider("Hidden layers", 1, 8, 4, 1, key="steps_depth", where=c2))
    seed = controls.number_input("Seed (starting weights)", 0, 999, 0, key="steps_seed", where=c3)
    result = runs(lr, depth, seed)
    t = int(controls.slider("Step reached", 0, MAX_STEPS, 0, 1, key="steps_at"))
    playing = session.pages.steps_playing.get()
    if playing != ticking:  # Play or Pause was pressed: the section with a timer, or without
        st.rerun(scope="app")
    b1, b2, b3, b4 = st.columns(4)
    b1.button("+1 step", key="steps_one", on_click=_move, args=(1,), disabled=t >= MAX_STEPS, width="stretch")
    b2.button(
        "+10 steps", key="steps_ten", on_click=_move, args=(10,), disabled=t >= MAX_STEPS, width="stretch"
    )
    b3.button(
        "⏸ Pause" if playing else "▶ Play",
        key="steps_play",
        on_click=_toggle_play,
        disabled=t >= MAX_STEPS and not playing,
        width="stretch",
    )
    b4.button("⟲ Back to step 0", key="steps_reset", on_click=_move, args=(None,), width="stretch")

    cols = st.columns(len(NORMALIZATIONS))
    for col, norm in zip(cols, NORMALIZATIONS, strict=True):
        run = result[norm]
        if 0 <= run.diverged_at <= t:
            col.metric(
                f"loss, {TITLES[norm]}", "diverged", help=f"The loss blew up at step {run.diverged_at}."
            )
        else:
            col.metric(
                f"loss, {TITLES[norm]}",
                fmt(float(run.loss[t])),
                delta=_since_start(float(run.loss[t] - run.loss[0])) if t else None,
                delta_color="inverse",
            )
    loss_fig = charts_depth.loss_curves_figure(
        [(TITLES[n], result[n].loss[: t + 1], *CURVE_STYLE[n]) for n in NORMALIZATIONS],
        f"Training loss, steps 0 … {t}",
    )
    loss_fig.update_xaxes(range=[0, MAX_STEPS])
    plot.show(loss_fig, key="steps_loss")

    stat = str(controls.choice("radio", "Statistic", STATISTICS, key="steps_stat", horizontal=True))
    panels = [(TITLES[n], getattr(result[n], stat)) for n in NORMALIZATIONS]
    plot.show(
        charts_training.layer_statistics_figure(panels, STATISTICS[stat], last_step=t, max_step=MAX_STEPS),
        key="steps_stats",
    )
    st.markdown(drift_sentence(result, t, depth))


def drift_sentence(result: dict[str, SteppedRun], t: int, depth: int) -> str:
    """How far the last layer's output spread moved from step 0 to step t, per normalization, and how
    far the normalized runs' γ and β moved meanwhile (all computed from the runs)."""
    if t == 0:
        return "At step 0 nothing has been learned yet: press *+1 step* or *Play*."
    parts, affine = [], []
    for norm in NORMALIZATIONS:
        drift = output_drift(result[norm], t)
        if drift is None:
            parts.append(f"{TITLES[norm]}: diverged at step {result[norm].diverged_at}")
            continue
        change = (
            ""
            if drift.change is None
            else f" ({'+' if drift.change >= 0 else ''}{fmt(100 * drift.change, 3)}%)"
        )
        parts.append(f"{TITLES[norm]}: {fmt(drift.start)} → {fmt(drift.end)}{change}")
        if norm != "none":
            affine.append(
                f"{TITLES[norm]}'s γ stayed within {fmt_bound(drift.gamma_off)} of 1 and its |β| at most "
                f"{fmt_bound(drift.beta_off)}"
            )
    text = f"The spread (std) of layer {depth}'s output, from step 0 to step {t}: " + "; ".join(parts) + ". "
    text += (
        "A normalization fixes the mean and spread of x̂ only. The output ReLU(γ·x̂ + β) also moves when "
        "training moves γ and β, and when it moves the weights before the norm, which reshape how x̂'s "
        "values fall on either side of ReLU's 0."
    )
    if affine:
        text += f" Up to step {t}, in every unit of every layer, " + "; ".join(affine) + "."
    return text


@page_fragment
def still() -> None:
    body(ticking=False)


@page_fragment(run_every=PLAY_EVERY)
def playing() -> None:
    if int(session.widgets.get("steps_at", 0)) >= MAX_STEPS:
        session.pages.steps_playing.set(False)
        st.rerun(scope="app")
    _move(PLAY_STEPS)
    body(ticking=True)


(playing if session.pages.steps_playing.get() else still)()

page.notice(
    [
        "Internal covariate shift: Ioffe and Szegedy (2015) introduced BatchNorm to stop each layer's "
        "input distribution from shifting as the layers before it train, and named that shift. "
        "Santurkar et al. (2018) tested the explanation: BatchNorm still helped when they added noise "
        "that made the shift larger, and they measured a smoother loss landscape instead. The curves "
        "above are one run's evidence, not a verdict: look at how much the statistics move with and "
        "without normalization, and at the loss beside them.",
        "The three networks start from the same weights (the seed), and every run is deterministic: a "
        "link to this page reproduces the settings and the step reached.",
    ]
)
page.predict_then_reveal(
    "steps_q",
    "Learning rate 0.3, 4 hidden layers, seed 0: after 100 steps, which network's last layer has "
    "stopped passing anything on (every unit outputs 0)? Predict, then set the sliders and look.",
    ["none of them", "the one without normalization", "the one with LayerNorm", "the one with BatchNorm"],
    1,
    "Without normalization a large step can push every unit of a layer to a negative input: ReLU then outputs "
    "0 for every example, the layer's spread is 0, no gradient reaches the layers below, and the loss "
    "stays at 0.5, the zero predictor's. With LayerNorm or BatchNorm each unit's input is re-centred "
    "before ReLU, with β deciding where: in this run their last layers keep a spread and their losses keep "
    "falling.",
)
page.show_source(train_stepped)
