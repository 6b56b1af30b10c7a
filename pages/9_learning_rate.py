"""Why normalize, part 2: train the same MLP with and without LayerNorm over a grid of learning rates."""

import numpy as np
import streamlit as st

from layernorm.backward import layer_norm_input_grad
from layernorm.labs.training import DEFAULT_LRS, Sweep, run_sweep
from layernorm.steps import layer_norm_x_hat
from ui import charts_depth as cd
from ui import controls, page, plot, session
from ui.fragments import page_fragment, rerun_fragments


@st.cache_data(show_spinner=False, max_entries=32)
def sweep(depth: int, width: int, steps: int, n_seeds: int, init_gain: float) -> Sweep:
    """The full sweep, with a progress bar while it trains (created and removed inside, so replays are clean)."""
    bar = st.progress(0.0, text="Training…")
    result = run_sweep(
        depth=depth,
        width=width,
        steps=steps,
        n_seeds=n_seeds,
        init_gain=init_gain,
        progress=lambda f, msg: bar.progress(min(max(f, 0.0), 1.0), text=msg),
    )
    bar.empty()
    return result


page.header(
    "Why normalize · Learning rate",
    "The lesson promises that a normalized network trains stably at learning rates that make an "
    "unnormalized one blow up. Here that claim is put to a test you can rerun: the same small ReLU "
    "network (same starting weights, same data: a regression target made by a random 'teacher' "
    "network) is trained by plain gradient descent with and without LayerNorm after each hidden "
    "layer, for nine learning rates from 0.001 to 10 and several seeds. In the map, a coloured cell "
    "gives the median final loss of the seeds that trained (brighter = lower); an empty cell marked ✗ blew "
    "up for every seed, and k/n✗ under a loss says k of the n seeds did.",
)


st.latex(
    r"h_{l} = \mathrm{ReLU}\big(\mathrm{LN}(h_{l-1}W_l + b_l)\big) \quad\text{vs}\quad "
    r"h_{l} = \mathrm{ReLU}(h_{l-1}W_l + b_l)"
)
st.latex(
    r"\theta \leftarrow \theta - \eta\,\nabla_\theta\, \tfrac{1}{2}\,\mathrm{mean}\,(\hat y - y)^2"
    r"\qquad \eta = \text{learning rate}"
)

# Two fragments: the sweep's settings rerun both (ui.fragments.rerun_fragments), the learning rate of the
# loss curves only the second.
MAP, CURVES = "lr_map_section", "lr_curves_section"
BOTH = (MAP, CURVES)


def settings() -> tuple[int, int, int, int, float]:
    """(depth, width, steps, seeds, init scale) as the map's section drew them (it runs first)."""
    get = session.widgets.get
    depth, n_seeds = int(np.clip(int(get("lr_depth", 6)), 4, 8)), int(np.clip(int(get("lr_seeds", 3)), 1, 5))
    return depth, int(get("lr_width", 32)), int(get("lr_steps", 100)), n_seeds, float(get("lr_gain", 1.5))


@page_fragment(key=MAP)
def map_section() -> None:
    again = {"on_change": rerun_fragments, "args": BOTH}
    c1, c2, c3, c4 = st.columns(4)
    controls.select_slider(
        "Init scale (× He init)",
        [0.5, 1.0, 1.5, 2.0, 3.0],
        1.5,
        key="lr_gain",
        where=c1,
        name="init scale",
        help="1 is the carefully tuned He initialisation for ReLU; above 1 the "
        "unnormalized network starts with activations that grow layer by layer.",
        **again,
    )
    controls.slider("Hidden layers", 4, 8, 6, 1, key="lr_depth", where=c2, **again)
    controls.select_slider("Width", [16, 32, 64], 32, key="lr_width", where=c3, **again)
    controls.select_slider("Steps", [50, 100, 200], 100, key="lr_steps", where=c4, **again)
    controls.slider("Seeds (different starting weights)", 1, 5, 3, 1, key="lr_seeds", name="seeds", **again)
    depth, width, steps, n_seeds, gain = settings()  # the same reading as the curves' section

    res = sweep(depth, width, steps, n_seeds, gain)
    med = res.median_final_loss()
    n_div = res.diverged.sum(axis=-1)
    names = [cd.NORM_NAMES[n] for n in res.norms]

    plot.show(cd.divergence_map(res.lrs, names, med, n_div, n_seeds), key="lr_map")

    stable = [[bool(n_div[k, m] == 0) for m in range(res.lrs.size)] for k in range(len(res.norms))]
    largest = [
        max((float(res.lrs[m]) for m in range(res.lrs.size) if stable[k][m]), default=None)
        for k in range(len(res.norms))
    ]
    m1, m2, m3 = st.columns(3)
    for col, name, lr in zip((m1, m2), names, largest, strict=True):
        col.metric(
            f"stable up to ({name})",
            "none" if lr is None else f"{lr:.3g}",
            help="Largest learning rate at which no seed diverged.",
        )
    both_diverge = [
        f"{float(v):.3g}" for m, v in enumerate(res.lrs) if n_div[0, m] == n_seeds and n_div[1, m] == n_seeds
    ]
    m3.metric("rates where both diverge", len(both_diverge), help=", ".join(both_diverge) or "none")


@page_fragment(key=CURVES)
def curves_section() -> None:
    depth, width, steps, n_seeds, gain = settings()
    res = sweep(depth, width, steps, n_seeds, gain)  # the map's, from the cache
    pick = controls.select_slider(
        "Loss curves at learning rate",
        [float(v) for v in DEFAULT_LRS],
        0.01,
        format_func=lambda v: f"{v:.3g}",
        key="lr_pick",
        name="learning rate",
    )
    m = int(np.argmin(np.abs(res.lrs - float(pick))))
    curves, crosses = [], []
    for k, norm in enumerate(res.norms):
        for s in range(n_seeds):
            name = f"{cd.NORM_NAMES[norm]}, seed {s}"
            loss = res.loss[k, m, s]
            curves.append((name, loss, cd.NORM_COLORS[norm], cd.DASHES[s % len(cd.DASHES)]))
            at = int(res.diverged_at[k, m, s])
            if at >= 0:
                finite = loss[np.isfinite(loss)]
                crosses.append(
                    (name, at, float(finite[-1]) if finite.size else res.initial_loss, cd.NORM_COLORS[norm])
                )
    plot.show(
        cd.loss_curves_figure(curves, f"Training loss at learning rate {res.lrs[m]:.3g}", diverged=crosses),
        key="lr_curves",
    )
    if crosses:
        st.warning(
            f"{len(crosses)} of {2 * n_seeds} runs diverged at this learning rate (marked ✗): their loss "
            "passed 1000× its starting value or overflowed, so training was stopped there.",
            icon=":material/warning:",
        )


map_section()
curves_section()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "Raise the init scale above 1: without LayerNorm the activations grow layer by layer before training "
        "even starts, while LayerNorm resets the scale at every hidden layer. Compare the two 'stable up to' "
        "metrics at each init scale.",
        "Where it does not help: at init scale 1 (a carefully tuned start) LayerNorm survives hardly any larger "
        "learning rate here, at most one step of the grid. And the output layer is not normalized, so LayerNorm "
        "can widen the safe range but not remove the limit: 'rates where both diverge' counts the rates that "
        "break both networks.",
        "At the smallest learning rates the unnormalized network can even be *ahead*: LayerNorm makes each layer "
        "blind to the size of its weights, so large weights learn slowly.",
    ]
)
page.predict_then_reveal(
    "lr_q",
    "Set the init scale to 1 (He init). With LayerNorm, how much larger a learning rate survives?",
    ["About 10× larger", "Hardly any: none, or at most one step of the grid (√10×)", "Any learning rate"],
    1,
    "With a well-scaled start this small network survives hardly any larger learning rate with LayerNorm: "
    "none at almost every setting, one step of the grid at a few (6 hidden layers, width 16, 4 seeds: 0.316 "
    "against 0.1). Compare the two 'stable up to' metrics: normalization helps most when the scale is off, "
    "which in a real, deep, changing network it soon is.",
)
page.show_source(run_sweep, layer_norm_x_hat, layer_norm_input_grad)
