"""Quiz questions on the confusions met under the hood: framework conventions, RMSNorm variants,
precision, the shared γ and β, gradients and training. Each answer is computed by the core and each
link opens the page in the state that shows it (see :mod:`layernorm.labs.quiz`).

Source: this project (teaching material); the conventions are PyTorch 2.13's, Keras 3's, Flax's and
TensorFlow's documented behaviour (tests/data/FRAMEWORKS.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from layernorm.backward import layer_norm_backward
from layernorm.core import mean, variance
from layernorm.data.activations import MiniLMRecording, load_minilm_recording
from layernorm.data.numbers import link_text
from layernorm.gradient_check import CHECK_STEPS, finite_difference_check
from layernorm.labs import bn_frameworks as bf
from layernorm.labs.fused import fused_affine
from layernorm.labs.precision import layer_norm_in_dtype
from layernorm.labs.quiz_kit import (
    Question,
    RepeatedOptions,
    ask,
    g,
    link,
    not_constant,
    typed,
    vec,
)
from layernorm.labs.shared_affine import undo_for_token
from layernorm.labs.stepping import MAX_STEPS, OutputDrift, output_drift, train_stepped
from layernorm.rms_variants import KERAS_EPS, MACHINE_EPS, rms_norm_variant

STORED_BATCH = [[1.0], [2.0], [3.0], [4.0]]  # Training vs inference's first batch preset


def _stored_variance(rng: np.random.Generator) -> Question:
    name = str(rng.choice(["PyTorch", "TensorFlow fused", "Keras 3", "Flax"]))
    fw = bf.framework(name)
    full = 1.0 if fw.momentum_weights_batch else 0.0  # the batch's full weight, in this framework's spelling
    u = bf.running_update(STORED_BATCH, [0.0], [1.0], framework_name=name, momentum=full)
    stored = float(u.new_running_var[0])
    other = float(u.batch_var[0] if fw.unbiased else u.batch_var_unbiased[0])
    return ask(
        rng, "stored-variance", "what BatchNorm's running variance stores, per framework",
        f"{name} BatchNorm trains on one batch x = [1, 2, 3, 4] (one feature) with momentum = {full:g}, which "
        "in its spelling gives the batch its full weight. Which running variance does it store?",
        g(stored), [g(other), "1 (the running variance is not updated in training)"],
        f"The batch is normalized with its variance ÷n = {g(float(u.batch_var[0]))} in every framework. "
        f"{name} stores the {'unbiased ÷(n−1)' if fw.unbiased else 'same ÷n'} variance, {g(stored)}: PyTorch and "
        "TensorFlow's fused kernel store ÷(n−1) = 5/3; Keras 3, TensorFlow's non-fused path and Flax store ÷n = "
        "1.25. A model moved between them sees slightly different inference statistics.",
        link("/train_vs_inference", tvi_framework=name, tvi_fw_batch="1, 2, 3, 4", tvi_fw_momentum=f"{full:g}"),
    )  # fmt: skip


FUSED_VALUES = (1e5, 1e6, 1e7, 5e7, 1e8, 1e9)  # Precision's channel values whose fused output is not 0
FUSED_COPIES = 5  # the channel Precision's example holds


def _fused_constant_channel(rng: np.random.Generator) -> Question:
    v = float(rng.choice(FUSED_VALUES))
    run = fused_affine(np.full(FUSED_COPIES, v), v, var=0.0)  # a constant channel: μ = v exactly, σ² = 0
    got = float(run.y[0])
    return ask(
        rng, "fused-affine", "the fused kernel y = x·s + b",
        f"A float32 BatchNorm kernel folds γ = 1, β = 0, ε = 1e−5 into y = x·s + b with s = γ/√(σ² + ε) and "
        f"b = β − μ·s, each stored in float32, then y in one fused multiply-add (x·s + b rounded once). A channel "
        f"holds {FUSED_COPIES} copies of {v:g}, and the kernel normalizes it with its own exact μ and σ² "
        "(training mode). Its output is…",
        f"{g(got)}, not 0", ["0, exactly β", "NaN: σ² = 0"],
        f"σ² = 0 and ε gives s = {g(float(run.scale[0]))}, so μ·s is about {g(v * float(run.scale[0]))}. Stored in "
        f"float32, b = −μ·s is off by its rounding, and x·s + b returns that rounding error, {g(got)}, "
        "where the step-by-step formula (x − μ)·s + β gives exactly 0. PyTorch 2.13's CPU BatchNorm in training "
        "mode (the batch's own μ and σ²) gives the same number on a processor with fused multiply-add (AVX2 or "
        "AVX-512); its build without them rounds x·s first and returns 0. In eval mode it uses its running "
        "statistics instead, which this question does not set.",
        link("/precision", fused_case="BatchNorm: a channel of equal values", fused_v=link_text(f"{v:.0e}")),
    )  # fmt: skip


def _functional_default(rng: np.random.Generator) -> Question:
    call = bf.functional_batch_norm([[2.0], [6.0]], [0.0], [1.0])
    trained = bf.functional_batch_norm([[2.0], [6.0]], [0.0], [1.0], training=True)
    return ask(
        rng, "functional-training", "F.batch_norm called without training=",
        "In a training loop you call torch.nn.functional.batch_norm(x, running_mean, running_var) on "
        "x = [[2], [6]] with running mean 0 and running variance 1, and no training= argument. What happens?",
        f"It normalizes with the running statistics ({vec(call.y[:, 0])}) and leaves them at 0 and 1",
        [
            "It normalizes with the batch's mean and variance ([−1, 1]) and updates the running statistics",
            "It raises an error: training= is required",
        ],
        "F.batch_norm's training argument defaults to False, while a BatchNorm module starts in training mode. "
        f"Without training=True it is inference: x/√(1 + ε) = {vec(call.y[:, 0])}, nothing learned, and the "
        f"running statistics never move. With training=True: {vec(trained.y[:, 0])}, and running statistics "
        f"{g(float(trained.running_mean[0]))} and {g(float(trained.running_var[0]))}.",
        link("/train_vs_inference", tvi_fn_call="F.batch_norm(x, rm, rv): training defaults to False"),
    )  # fmt: skip


def _keras_rms_scaling(rng: np.random.Generator) -> Question:
    x = not_constant(rng, 1, 9)
    keras = float(rms_norm_variant(x, "keras_rms_scaling", eps=KERAS_EPS)[0] / x[0])
    rms = float(rms_norm_variant(x, "rmsnorm", eps=KERAS_EPS)[0] / x[0])
    return ask(
        rng, "keras-rms-scaling", "Keras' rms_scaling=True",
        f"Keras 3's LayerNormalization(rms_scaling=True, epsilon=1e−3) on x = {vec(x)}: every feature is "
        "multiplied by the same factor. Which?",
        f"{g(keras)} = 1/√(variance + ε)", [f"{g(rms)} = 1/√(mean of x² + ε)", "1 (x is already scaled)"],
        f"Keras computes the mean-centred variance ({g(float(variance(x)))}) and multiplies x by 1/√(variance + ε) "
        f"= {g(keras)}, without subtracting the mean. RMSNorm divides by the root of the mean square "
        f"({g(float(mean(x * x)))}): factor {g(rms)}. The two agree only when x has mean 0.",
        link("/estimators_and_eps", **typed(x), est_rms_example="the sidebar's vector"),
    )  # fmt: skip


def _dtype_eps(rng: np.random.Generator) -> Question:
    a = float(rng.choice([0.05, 0.04, 0.06]))
    x = np.array([a, -a, a, -a])
    own = float(rms_norm_variant(x, "rmsnorm", eps=MACHINE_EPS["bfloat16"])[0])
    opmath = float(rms_norm_variant(x, "rmsnorm", eps=MACHINE_EPS["float32"])[0])
    return ask(
        rng, "rms-dtype-eps", "RMSNorm's default ε and the input's dtype",
        f"An RMSNorm written to take its default ε from the input's dtype gets bfloat16 input {vec(x)}. "
        "bfloat16's machine ε is 2⁻⁷ = 0.0078125. Its first output is about…",
        g(own), [g(opmath), g(a)],
        f"√(mean of x² + ε) = √({g(a * a)} + 0.0078125): the ε meant to be negligible is larger than the mean "
        f"square, so the output is {g(own)} instead of {g(opmath)}. PyTorch 2.13's nn.RMSNorm(eps=None) takes "
        "float32's ε (2⁻²³) for bfloat16 and float16 input, which gives the second.",
        link("/estimators_and_eps", **typed(x), est_rms_example="the sidebar's vector", est_rms_dtype="bfloat16"),
    )  # fmt: skip


def _sqrt_too_many(rng: np.random.Generator) -> Question:
    x = not_constant(rng, 1, 6, size=2)
    wrong = rms_norm_variant(x, "sqrt_of_rms", eps=0.0)
    right = rms_norm_variant(x, "rmsnorm", eps=0.0)
    return ask(
        rng, "rms-sqrt-too-many", "a formula for RMSNorm",
        f"A formula reads y = x / √(RMS(x) + ε), where RMS(x) = √(mean of x²). For x = {vec(x)} and ε = 0, "
        "what does RMSNorm itself give?",
        vec(right), [vec(wrong), vec(x / float(mean(x)))],
        f"RMSNorm divides by RMS(x) = √(mean of x²) once: {vec(right)}. Taking the root of RMS again divides by "
        f"a fourth root instead, {vec(wrong)}, whose size still depends on x's scale.",
        link("/estimators_and_eps", **typed(x), est_rms_example="the sidebar's vector"),
    )  # fmt: skip


def _one_pass(rng: np.random.Generator) -> Question:
    # offsets whose one-pass variance is finite and wrong in that dtype (no square overflows)
    offset, dtype = [(100.0, "float16"), (200.0, "bfloat16"), (20.0, "bfloat16")][int(rng.integers(3))]
    x = np.array([1.0, 2.0, 3.0, 4.0]) + offset
    wrong = float(layer_norm_in_dtype(x, dtype=dtype, method="one_pass").var[0])
    bits = {"float16": 11, "bfloat16": 8}[dtype]
    return ask(
        rng, "one-pass", f"the one-pass variance in {dtype}",
        f"x = [1, 2, 3, 4] + {offset:g}, in {dtype}. The one-pass formula mean(x²) − μ² gives σ² = …",
        f"{g(wrong)} (the true value is 1.25)", ["1.25, like the two-pass formula", "0"],
        f"In {dtype} the squares (about {g(offset * offset)}) keep only {bits} significant bits, so mean(x²) − μ² "
        f"loses the 1.25 in rounding and gives {g(wrong)}. Subtracting μ first (two passes, or Welford) keeps it.",
        link("/precision", **typed(np.array([1.0, 2.0, 3.0, 4.0])), prec_dtype=dtype, prec_offset=f"{offset:.0e}".replace("e+0", "e")),
    )  # fmt: skip


@functools.lru_cache(maxsize=1)
def _minilm() -> MiniLMRecording:
    """The MiniLM recording Scale & shift's "One γ, β for a whole sentence" shows (read once)."""
    return load_minilm_recording()


def _shared_undo(rng: np.random.Generator) -> Question:
    # Scale & shift's real tokens: a sentence, a LayerNorm and a token to undo, each one its controls offer
    rec = _minilm()
    sentence, site = int(rng.integers(rec.n_sentences)), int(rng.integers(rec.n_sites))
    positions = [int(t) for t in rec.real_token_indices(sentence)]
    k = int(rng.integers(len(positions)))
    r = undo_for_token(rec.sentence_tokens(sentence, site), k, eps=float(rec.eps[site]))
    token = f"{positions[k]} · {rec.tokens[sentence, positions[k]]}"  # as the page's token menu writes it
    lo, hi = g(float(np.min(r.mu))), g(float(np.max(r.mu)))
    return ask(
        rng, "shared-undo", "one γ, β for every token",
        f"MiniLM's LayerNorm \"{rec.site_label(site)}\" receives the {len(positions)} tokens of "
        f"\"{rec.sentences[sentence]}\", whose means run from {lo} to {hi}. Its γ and β are set to undo token "
        f"\"{token}\" (γ = its σ = {g(r.gamma)}, β = its μ = {g(r.beta)}, in every feature; ε = "
        f"{g(float(rec.eps[site]))}, the model's). What are the means of the {len(positions)} tokens' outputs?",
        f"{g(r.beta)} for every token: β", [f"their own means again, {lo} to {hi}", "0 for every token"],
        f"γ and β are shared: every token's output has mean β = {g(r.beta)} (LayerNorm's x̂ has mean 0) and "
        f"spread about γ = {g(r.gamma)}. The token they were taken from comes back; the others lose their own "
        "mean and spread, which LayerNorm's output does not hold.",
        link(
            "/scale_shift", ss_many_sentence=str(rec.sentences[sentence]), ss_many_site=rec.site_label(site),
            ss_many_token=token,
        ),
    )  # fmt: skip


def _gradient_sums_to_zero(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -3, 9)
    k = int(rng.integers(1, x.size + 1))  # L = y_k: an upstream gradient the Gradients page offers
    dy = np.eye(x.size)[k - 1]
    dx, _, _ = layer_norm_backward(x, None, dy, eps=1e-5)
    total = float(np.sum(dx))
    here = "exactly 0 here" if total == 0 else f"here {g(total)}, float64's rounding"
    return ask(
        rng, "gradient-sum", "the sum of LayerNorm's input gradient",
        f"LayerNorm (γ = 1, β = 0, ε = 1e−5) of x = {vec(x)} feeds the loss L = y{str(k).translate(_SUBSCRIPT)}, "
        f"so ∂L/∂y is one-hot at k = {k} and sums to 1. What do the four entries of ∂L/∂x sum to?",
        "0 (to rounding)", ["1, as ∂L/∂y does", "0.25, ∂L/∂y's sum over d"],
        f"Adding a constant to x changes nothing after LayerNorm, so the loss cannot change along (1, 1, 1, 1): "
        f"∂L/∂x has no component there and its entries sum to 0 ({here}).",
        link("/gradients", **typed(x), grad_kind="One-hot", grad_k=str(k)),
    )  # fmt: skip


def _finite_difference_step(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -3, 9)
    k = int(rng.integers(1, x.size + 1))  # the loss is one output, L = y_k: its upstream gradient is one-hot
    dy = np.eye(x.size)[k - 1]
    check = finite_difference_check(x, None, None, dy, parameter="x", index=0, steps=CHECK_STEPS)
    best = float(CHECK_STEPS[check.best])
    tiny, big = float(CHECK_STEPS[0]), float(CHECK_STEPS[-1])
    if best in (tiny, big):  # an option would name the same step twice
        raise RepeatedOptions(f"the best step is an end of the range, {best:g}")
    if np.count_nonzero(check.errors == check.errors[check.best]) > 1:  # two steps tie: no one answer
        raise RepeatedOptions(f"two steps agree equally well at x = {x}")
    return ask(
        rng, "finite-difference-step", "a gradient check's step size",
        f"LayerNorm (γ = 1, β = 0, ε = 1e−5) of x = {vec(x)} feeds the loss L = y{str(k).translate(_SUBSCRIPT)}, one output, so "
        f"∂L/∂y is one-hot at k = {k}. You check ∂L/∂x₁ by nudging x₁ by ±h, for h = {tiny:g}, …, {big:g} (each a power of 10). "
        "Which h gives the closest agreement with the backward pass?",
        f"{best:g}", [f"{tiny:g} (the smallest: closer to the limit)", f"{big:g} (the largest: least rounding)"],
        f"Too large an h measures the curve's bend (error ∝ h²); too small an h divides float64's rounding of "
        f"L by h. Between them the best step here is {best:g}, with |difference| {g(float(check.errors[check.best]))}; "
        f"at {tiny:g} it is {g(float(check.errors[0]))} and at {big:g} {g(float(check.errors[-1]))}.",
        link("/gradients", **typed(x), grad_kind="One-hot", grad_k=str(k), grad_check_h=_step_text(best)),
    )  # fmt: skip


_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _step_text(h: float) -> str:
    """A step as the Gradients page's URL writes it: 1e-5."""
    return link_text(f"{h:.0e}".replace("e-0", "e-"))


DRIFT_RUNS = {"lr": (0.001, 0.003, 0.01), "depth": (4, 6, 8), "seed": (0, 1)}  # Training, step by step's
STEPS_WIDTH = 32  # that page's units per layer


@functools.lru_cache(maxsize=32)
def _layernorm_drift(lr: float, depth: int, seed: int) -> OutputDrift:
    """The LayerNorm run Training, step by step draws for these settings, from step 0 to its last."""
    run = train_stepped("layernorm", lr=lr, depth=depth, width=STEPS_WIDTH, steps=MAX_STEPS, seed=seed)
    drift = output_drift(run, MAX_STEPS)
    if drift is None or drift.change is None:  # a diverged or dead run has no spread to compare
        raise RuntimeError(f"the LayerNorm run lr={lr}, depth={depth}, seed={seed} has no drift to ask about")
    return drift


def _training_moves(rng: np.random.Generator) -> Question:
    lr, depth, seed = (rng.choice(DRIFT_RUNS[k]) for k in ("lr", "depth", "seed"))
    lr, depth, seed = float(lr), int(depth), int(seed)
    d = _layernorm_drift(lr, depth, seed)
    change = 100 * float(d.change)  # type: ignore[arg-type]  # not None: _layernorm_drift checked it
    return ask(
        rng, "training-drift", "a LayerNorm network's output spread in training",
        f"A network of {depth} hidden ReLU layers of {STEPS_WIDTH} units has LayerNorm after each (γ, β learned) and "
        f"trains for {MAX_STEPS} steps at learning rate {lr:g} from seed {seed} (Training, step by step). "
        "The spread (std) of its last layer's output, from step 0 to the end…",
        f"moves from {g(d.start)} to {g(d.end)} ({'+' if change >= 0 else ''}{g(change)}%)",
        [
            f"stays at {g(d.start)}: LayerNorm fixes the mean and spread of each layer's output",
            "is 1 at every step: LayerNorm gives every layer's output unit spread",
        ],
        f"Meanwhile every γ stayed within {g(d.gamma_off)} of 1 and every |β| at most {g(d.beta_off)}. LayerNorm "
        "fixes the mean and spread of x̂ over each example's units, not those of the layer's output "
        "ReLU(γ·x̂ + β): the output moves when γ and β move, and when the weights before the norm move, which "
        "change how x̂'s values fall on either side of ReLU's 0. (Whether reducing this 'internal covariate "
        "shift' is why normalization helps is disputed: Ioffe & Szegedy 2015 against Santurkar et al. 2018.)",
        link(
            "/training_steps", steps_lr=f"{lr:g}", steps_depth=str(depth), steps_seed=str(seed),
            steps_at=str(MAX_STEPS), steps_stat="std of each layer's output (what the next layer reads)",
        ),
    )  # fmt: skip


BUILDERS: tuple[Callable[[np.random.Generator], Question], ...] = (
    _fused_constant_channel,
    _stored_variance,
    _functional_default,
    _keras_rms_scaling,
    _dtype_eps,
    _sqrt_too_many,
    _one_pass,
    _shared_undo,
    _gradient_sums_to_zero,
    _finite_difference_step,
    _training_moves,
)
