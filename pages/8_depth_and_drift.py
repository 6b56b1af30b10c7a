"""Why normalize, part 1: activations and gradients through a deep stack of random layers."""

from dataclasses import replace

import numpy as np
import streamlit as st

from layernorm.labs.depth import EXPLODE, VANISH, DepthConfig, DepthResult, layer_histograms, simulate_depth
from ui import charts_depth as cd
from ui import controls, page, plot
from ui.fragments import page_fragment
from ui.text import digits_not_to_look_exact, digits_to_separate, rounding_noise
from ui.widgets import placement_control


def _g(value: float, digits: int) -> str:
    return f"{value:.{digits}g}"


ACT_NAMES = {"linear": "linear (none)", "tanh": "tanh", "relu": "ReLU", "gelu": "GELU"}


@st.cache_data(show_spinner="Running the stack forward and backward…", max_entries=64)
def run(cfg: DepthConfig) -> DepthResult:
    return simulate_depth(cfg)


page.header(
    "Why normalize · Depth and drift",
    "A deep network is a long chain of matrix multiplications. If each layer makes its input even a "
    "little bigger, the effect compounds: 1.1 to the power 100 is about 14 000. A little smaller, and "
    "the signal fades to nothing. Here a batch of random vectors goes through L random layers; you "
    "choose how large the weights are (the *gain*), the activation, skip connections and a "
    "normalization, and watch the size of the activations, and of the gradients flowing back, layer by layer.",
)


# The page's controls rerun only this part (a fragment), not app.py and the sidebar.
@page_fragment
def body() -> None:
    c1, c2, c3 = st.columns(3)
    n_layers = int(controls.slider("Layers L", 1, 100, 30, 1, key="depth_layers", where=c1))
    gain = float(
        controls.slider(
            "Init gain (weights ~ N(0, gain²/d))",
            0.1,
            3.0,
            1.0,
            0.05,
            key="depth_gain",
            where=c2,
            name="gain",
            help="1 keeps a linear layer's scale; ReLU needs about √2 ≈ 1.41 (He init), tanh about 5/3.",
        )
    )
    width = int(controls.select_slider("Width d", [16, 32, 64, 128, 256], 128, key="depth_width", where=c3))
    c1, c2, c3 = st.columns(3)
    activation = controls.choice(
        "selectbox",
        "Activation",
        ACT_NAMES,
        key="depth_act",
        index=1,
        where=c1,
    )
    norm = controls.choice(
        "radio",
        "Normalization",
        cd.NORM_NAMES,
        key="depth_norm",
        where=c2,
        horizontal=True,
    )
    residual = controls.flag(
        "toggle", "Residual connections (x + f(x))", False, key="depth_residual", where=c3
    )
    seed = controls.number_input("Seed", 0, 999, 0, key="depth_seed", where=c3)
    placement = placement_control(
        "Where the normalization sits (with residual connections)",
        key="depth_placement",
        disabled=not residual,
        help="Shared with the 'Inside a real transformer' page.",
    )

    n_layers, width, seed = int(np.clip(n_layers, 1, 100)), int(width), int(np.clip(seed, 0, 999))
    gain = float(np.clip(gain, 0.1, 3.0))
    cfg = DepthConfig(
        n_layers=n_layers,
        width=width,
        gain=gain,
        activation=str(activation),
        residual=bool(residual),
        norm=str(norm),
        placement=placement,
        batch=32,
        seed=seed,
    )
    res = run(cfg)

    norm_tex = {
        "none": "",
        "layernorm": r"\mathrm{LN}",
        "batchnorm": r"\mathrm{BN}",
        "rmsnorm": r"\mathrm{RMSN}",
    }[cfg.norm]
    wrap = (lambda s: rf"{norm_tex}\left({s}\right)") if norm_tex else (lambda s: s)
    init = rf",\quad W_l \sim \mathcal{{N}}\!\left(0, \tfrac{{{gain:g}^2}}{{{width}}}\right),\quad l = 1 \ldots {n_layers}"
    if not cfg.residual:
        body = r"\phi\!\left(" + wrap(r"h_{l-1} W_l") + r"\right)"
    elif cfg.placement == "post":
        body = wrap(r"h_{l-1} + \phi(h_{l-1} W_l)")
    else:
        body = r"h_{l-1} + \phi\!\left(" + wrap(r"h_{l-1}") + r"\, W_l\right)"
    st.latex(r"h_l = " + body + init)

    verdict = f"**Activations:** {res.status}.  \n**Backward pass:** {res.grad_status}."
    if res.exploded:
        st.error(verdict, icon=":material/crisis_alert:")
    elif (
        res.vanished
        or not res.status.startswith("stable")
        or not res.grad_status.startswith("gradients stable")
    ):
        st.warning(verdict, icon=":material/warning:")
    else:
        st.success(verdict, icon=":material/check_circle:")

    # the two stds are compared: enough digits that a drift never hides behind rounding to 3 digits
    stds = (float(res.act_std[0]), float(res.act_std[-1]))
    std_digits = digits_not_to_look_exact(  # post-LN's 0.999995 is not the "1" three digits would print
        stds,
        digits_to_separate(stds, 3, same_within=rounding_noise(stds), style=_g),
        same_within=rounding_noise(stds),
        style=_g,
    )
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("std at the input", f"{stds[0]:.{std_digits}g}")
    m2.metric(f"std at layer {res.n_computed}", f"{stds[1]:.{std_digits}g}")
    m3.metric(f"max |h| at layer {res.n_computed}", f"{res.act_absmax[-1]:.3g}")
    m4.metric("‖dL/dW‖ at layer 1", f"{res.grad_w_norm[-1]:.3g}" if res.grad_w_norm.size else "—")

    compare = controls.flag(
        "checkbox",
        "Also draw the same stack with no normalization and with LayerNorm",
        True,
        key="depth_compare",
    )
    runs = [(cfg.norm, res)]
    if compare:
        runs += [(n, run(replace(cfg, norm=n))) for n in ("none", "layernorm") if n != cfg.norm]
    act_series, grad_series = [], []
    for i, (n, r) in enumerate(runs):
        name = cd.NORM_NAMES[n] + (" (yours)" if i == 0 else "")
        act_series.append((name, np.arange(r.n_computed + 1), r.act_std, cd.NORM_COLORS[n], cd.DASHES[i]))
        if r.grad_layers.size:
            grad_series.append((name, r.grad_layers, r.grad_w_norm, cd.NORM_COLORS[n], cd.DASHES[i]))
    plot.show(
        cd.per_layer_figure(
            act_series,
            "Spread of the activations, layer by layer",
            "std of h (log scale)",
            hi=EXPLODE * res.act_std[0],
            lo=VANISH * res.act_std[0],
        ),
        key="depth_std_chart",
    )
    if grad_series:
        g_top = res.grad_w_norm[0] if res.grad_w_norm.size else 1.0
        plot.show(
            cd.per_layer_figure(
                grad_series,
                "Gradient reaching each layer's weights (one backward pass)",
                "‖dL/dW_l‖ (log scale)",
                hi=EXPLODE * g_top,
                lo=VANISH * g_top,
                x_title="layer l",
            ),
            key="depth_grad_chart",
        )
    else:
        st.error(f"No gradient chart: {res.grad_status}.", icon=":material/crisis_alert:")

    inspect_section(cfg)


# Nested in the simulation's fragment: the simulation's controls rerun both, the layer picker and the
# view only this one. It reads the stack from the cache by its config (a fragment keeps its arguments
# for its own reruns: the config is small, the result is not).
@page_fragment
def inspect_section(cfg: DepthConfig) -> None:
    res = run(cfg)
    with st.container():
        c1, c2 = st.columns([2, 1])
        requested = int(
            controls.slider("Inspect layer (0 = input)", 0, 100, 10, 1, key="depth_pick", where=c1)
        )
        view = controls.choice(
            "radio", "View", ["Histogram", "Ridgeline"], key="depth_view", where=c2, horizontal=True
        )
        pick = int(np.clip(requested, 0, res.n_computed))
        if requested > pick:
            st.caption(
                f"The stack has layers 0 … {res.n_computed} with finite values, so layer {pick} is shown."
            )
        if view == "Histogram":
            counts, edges = layer_histograms(res, [pick])
            plot.show(
                cd.histogram_figure(
                    counts[0],
                    edges,
                    f"Activations at layer {pick}: std {res.act_std[pick]:.3g}",
                    cd.NORM_COLORS[cfg.norm] if cfg.norm != "none" else cd.COLORS["x"],
                ),
                key="depth_hist",
            )
        else:
            layers = sorted({int(v) for v in np.linspace(0, pick, 6).round()})
            counts, edges = layer_histograms(res, layers)
            plot.show(
                cd.ridgeline_figure(
                    counts, edges, layers, f"How the distribution changes up to layer {pick}"
                ),
                key="depth_ridge",
            )


body()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "No normalization, tanh, gain 1: the spread shrinks slowly over the layers. Gain 0.5: it about "
        "halves at every layer and has vanished (10⁴× smaller) after a dozen or so layers. Linear with gain 3: "
        "it grows about 3× per layer and has exploded (10⁴× larger) after about 8 to 10 layers. ReLU with gain "
        "3 zeroes about half of each layer's inputs, so it grows about 3/√2 ≈ 2.1× per layer on average, less "
        "steadily at small widths, and explodes after about 11 to 20 layers. The gradients explode with it.",
        "Without residual connections, switch on LayerNorm: the std is reset at every layer whatever the gain, "
        "so nothing accumulates in the activations.",
        "Honest limits: LayerNorm resets the activations, not the gradients; with ReLU at gain 3 the gradient "
        "reaching the input still drifts with depth, up or down with the width and seed. BatchNorm + ReLU keeps "
        "the activations tidy, but its gradients grow by a roughly constant factor at every layer on the way "
        "back (Yang et al. 2019): add layers and their verdict goes from stable to growing to exploded, "
        "which it reads at 100 layers.",
        "Residual + pre-LN: the stream itself is never normalized, so its std still grows, but slowly: every "
        "layer adds about the same variance, so nothing compounds. Post-LN keeps the stream at std 1 (just under it: "
        "ε adds to the variance it divides by).",
    ]
)
page.predict_then_reveal(
    "depth_q",
    "If every layer multiplies the std by 1.1 (linear layers, no normalization), roughly how much larger is "
    "it after 100 layers?",
    ["about 1.1 times", "about 110 times", "about 14 000 times"],
    2,
    "1.1¹⁰⁰ ≈ 13 800: small per-layer drift compounds. The simulation's random layers multiply by 1.1 only on "
    "average, so what it shows scatters around that, most at small widths: set L = 100, gain 1.1, linear, "
    "and try a few seeds.",
)
page.show_source(simulate_depth)
