"""A misconception quiz: questions drawn from real confusions about normalization, with live numbers.

Each question is built from a seed: the numbers in it are drawn per session and the right answer
is computed by the core (``layer_norm``, ``variance``, ``rms_norm``, ``batch_norm_train``,
``stat_counts`` ...), so a student cannot memorise positions or values. Options are shuffled per
seed. The page shows only :attr:`Question.prompt` and :attr:`Question.options` until the student
answers; :meth:`Question.check` then reveals whether it was right and why.

Source: this project (teaching material); the facts it tests come from Ba, Kiros & Hinton (2016),
Ioffe & Szegedy (2015), Zhang & Sennrich (2019), Xiong et al. (2020) and the PyTorch/Keras docs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from layernorm.batch import DEFAULT_MOMENTUM
from layernorm.core import DEFAULT_EPS as EPS
from layernorm.core import layer_norm, mean, variance
from layernorm.family import rms_norm
from layernorm.labs import quiz_more, quiz_numerics, quiz_recent
from layernorm.labs.batch_effects import batch_mates
from layernorm.labs.bn_frameworks import functional_batch_norm
from layernorm.labs.lens_counts import stat_counts
from layernorm.labs.quiz_kit import Question, RepeatedOptions, ask, g, link, not_constant, typed, vec
from layernorm.labs.running import make_population
from layernorm.steps import layer_norm_steps


def _divide_by(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -4, 9)
    pop, sample = float(variance(x)), float(variance(x, ddof=1))
    ms = float(mean(x * x))
    if g(ms) == g(pop):  # μ = 0: the mean of x² is σ² itself, and that option would be right too
        raise RepeatedOptions(f"x = {x} has mean 0")
    return ask(
        rng, "divide-by", "÷d or ÷(d−1)",
        f"LayerNorm normalizes x = {vec(x)}. Which σ² does it divide by?",
        f"{g(pop)} (÷d, the population variance)",
        [f"{g(sample)} (÷(d−1), the sample variance)", f"{g(ms)} (the mean of x²)"],
        f"LayerNorm (and BatchNorm when it normalizes) uses the population variance: the squared deviations "
        f"summed and divided by d = 4, giving {g(pop)}. Dividing by d − 1 = 3 gives {g(sample)}, the unbiased "
        "estimate, which PyTorch's BatchNorm uses only for its running variance.",
        link("/variance", **typed(x)),
    )  # fmt: skip


def _eps_near_constant(rng: np.random.Generator) -> Question:
    c = float(rng.integers(1, 9))
    delta = float(rng.choice([1e-3, 2e-3, 4e-3]))
    x = np.array([c - delta / 2, c + delta / 2])
    y = float(layer_norm(x, eps=1e-5)[1])
    return ask(
        rng, "eps-near-constant", "a nearly constant pair",
        f"x = [{c:g} − {delta / 2:g}, {c:g} + {delta / 2:g}] is almost constant. With ε = 1e−5 inside the "
        "square root, LayerNorm's second output is…",
        g(y), ["1 (as for any non-constant pair)", "0 (ε removes everything)", g(delta / 2 / 1e-5)],
        f"σ² = {g(delta**2 / 4)} is smaller than ε = 1e−5, so ε makes up most of σ² + ε and x̂ = "
        f"{g(delta / 2)} / √({g(delta**2 / 4)} + 1e−5) = {g(y)}: ε keeps near-constant vectors from being "
        "blown up to ±1.",
        link("/standardize", **typed(x)),
    )  # fmt: skip


def _which_axis(rng: np.random.Generator) -> Question:
    lens = str(rng.choice(["BatchNorm", "InstanceNorm", "GroupNorm", "LayerNorm"]))
    pools = {
        "LayerNorm": "the d features of one token",
        "BatchNorm": "one feature across every token of the batch (B·T values)",
        "InstanceNorm": "one feature across the T tokens of one sequence",
        "GroupNorm": "a group of d/G features across the T tokens of one sequence",
    }
    return ask(
        rng, "which-axis", "which axis each norm pools over",
        f"For a batch of shape (B sequences, T tokens, d features), {lens} computes one mean from…",
        pools[lens], [v for k, v in pools.items() if k != lens],
        f"{lens} pools over {pools[lens]}. Only LayerNorm (and RMSNorm) stays inside one token, so only their "
        "output for a token depends on no other token.",
        link("/which_axis", axes_lens=lens),
    )  # fmt: skip


def _how_many_stats(rng: np.random.Generator) -> Question:
    b, t = int(rng.choice([2, 4, 8])), int(rng.choice([16, 32, 64]))
    d = int(rng.choice([256, 512, 768]))
    counts = {c.lens: c.total for c in stat_counts((b, t, d))}
    ln_count, bn_count = counts["LayerNorm"], counts["BatchNorm"]
    if ln_count == bn_count:  # B·T = d: the per-token option would name BatchNorm's number too
        raise RepeatedOptions(f"B·T = d = {d}: both norms compute {bn_count:,} statistics")
    return ask(
        rng, "how-many-stats", "how many statistics",
        f"A batch has B = {b} sequences of T = {t} tokens with d = {d} features. How many means and variances "
        "does BatchNorm compute in one training step?",
        f"{bn_count:,} (a mean and a variance per feature)",
        [f"{ln_count:,} (a mean and a variance per token)", "2 (one mean, one variance)", f"{2 * b * t * d:,}"],
        f"BatchNorm computes 2 numbers per feature: 2·d = {bn_count:,}, whatever B and T are. LayerNorm computes 2 per "
        f"token: 2·B·T = {ln_count:,}.",
        link("/which_axis", axes_B=str(b), axes_T=str(t), axes_d=str(d), axes_lens="BatchNorm"),
    )  # fmt: skip


# Training vs inference's section 7 calls F.batch_norm on this batch and these running statistics
FN_X, FN_RM, FN_RV = [[2.0], [6.0]], [0.0], [1.0]
TVI_N = 16  # that page's batch size until it is moved: its example's batch (section 2) holds 16
TVI_D = (4, 8, 16)  # some of its d: at d = 2 the outputs are ±0.999998, which its 4 digits print as ±1


def _running_mean(rng: np.random.Generator) -> Question:
    # PyTorch's rule, as Training vs inference's F.batch_norm(..., training=True) applies it at its default
    # momentum: no numbers to draw, since the page can show only its own batch (the options are shuffled)
    call = functional_batch_norm(FN_X, FN_RM, FN_RV, training=True)
    old, batch_mean, m = FN_RM[0], float(mean(np.ravel(FN_X))), DEFAULT_MOMENTUM
    right = float(call.running_mean[0])
    return ask(
        rng, "running-mean", "BatchNorm's running statistics (PyTorch)",
        f"PyTorch's F.batch_norm(x, running_mean, running_var, training=True), at its default momentum = {m:g}, "
        f"gets the batch x = [[2], [6]] (two examples, one feature). The running mean is {g(old)} and the "
        f"batch's mean is {g(batch_mean)}. The new running mean is…",
        g(right), [g(m * old + (1 - m) * batch_mean), g(batch_mean), g((old + batch_mean) / 2)],
        f"PyTorch: new = (1 − momentum)·old + momentum·batch = {g(1 - m)}·{g(old)} + {g(m)}·{g(batch_mean)} = "
        f"{g(right)}. The running mean moves only a tenth of the way each step.",
        link("/train_vs_inference", tvi_fn_call="F.batch_norm(x, rm, rv, training=True)"),
    )  # fmt: skip


def _keras_momentum(rng: np.random.Generator) -> Question:
    m = float(rng.choice([0.1, 0.01, 0.05]))
    return ask(
        rng, "keras-momentum", "PyTorch versus Keras momentum",
        f"A PyTorch BatchNorm has momentum = {m:g}. Which Keras momentum gives the same running averages?",
        f"{1 - m:g}", [f"{m:g}", f"{1 / m:g}"],
        f"Keras weights the old value: new = momentum·old + (1 − momentum)·batch. PyTorch weights the batch. "
        f"So PyTorch {m:g} is Keras {1 - m:g} (Keras' default 0.99 is PyTorch's 0.01).",
        link("/train_vs_inference", tvi_momentum=f"{m:g}"),
    )  # fmt: skip


def _batch_of_one(rng: np.random.Generator) -> Question:
    d = int(rng.choice([4, 8, 16]))
    return ask(
        rng, "batch-of-one", "batch size 1",
        f"You train with a batch of one example of d = {d} features (shape (1, {d}), no other axes). What happens?",
        "BatchNorm cannot train (one value per feature: no variance); LayerNorm works as usual",
        ["Both work as usual", "LayerNorm fails, BatchNorm works", "Both fail"],
        "BatchNorm's statistics come from the batch: with one value per feature, x − μ is 0 whatever the input "
        "and the ÷(n−1) variance for the running average is 0/0, so PyTorch raises an error in training. "
        "LayerNorm's statistics come from the token's own features, so it is the same with 1 example or 1,000.",
        link("/train_vs_inference", tvi_n="1", tvi_d=str(d)),
    )  # fmt: skip


def _train_vs_eval(rng: np.random.Generator) -> Question:
    # Training vs inference's example (section 2) for the page's own d and seed: the page shows one
    # feature of it, its input and its LayerNorm output
    d, seed = int(rng.choice(TVI_D)), int(rng.integers(10_000))
    k = int(rng.integers(d))
    x, _, y = batch_mates(make_population(d, seed=seed), TVI_N, fixed_seed=seed, mates_seed=0)
    return ask(
        rng, "train-eval", "LayerNorm in training and inference",
        f"Training vs inference's example for d = {d} features and seed {seed} has x = {g(x[k])} in feature "
        f"{k}, and LayerNorm (ε = 1e−5) gives {g(y[k])} there during training. After model.eval(), the same "
        f"example gives in feature {k}…",
        f"{g(y[k])}, the same", ["Something else: it now uses running statistics", f"{g(x[k])}, x itself: LayerNorm is off in eval"],
        "LayerNorm keeps no running statistics: it always normalizes with the token's own μ and σ, so training "
        "and inference compute exactly the same function. BatchNorm is the one that switches.",
        link("/train_vs_inference", tvi_d=str(d), tvi_seed=str(seed), tvi_feature=str(k), tvi_mode="Inference"),
    )  # fmt: skip


def _invariance(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -3, 7)
    c, b = float(rng.choice([2.0, 10.0, 100.0])), float(rng.choice([5.0, 3.0, 10.0]))  # Invariances' c and b
    y, moved = layer_norm(x), layer_norm(c * x + b)  # the sidebar's ε, 1e-5, which Invariances opens with
    gap = float(np.max(np.abs(moved - y)))  # ε/c² in place of ε: about 1e-6 here, far above float64 rounding
    return ask(
        rng, "invariance", "LayerNorm of a scaled and shifted x",
        f"With ε = 1e−5, LayerNorm({vec(x)}) = {vec(y)}. What is LayerNorm({g(c)}·x + {g(b)})?",
        f"{vec(moved)}, unchanged but for ε (largest change {g(gap)})", [vec(c * y + b), vec(c * y), vec(-y)],
        f"Multiplying by {g(c)} > 0 multiplies x − μ and σ alike, and adding {g(b)} moves x and μ alike: x̂ "
        f"cannot see either. Only ε can: LayerNorm({g(c)}·x + {g(b)}) is LayerNorm(x) with ε/{g(c)}² = "
        f"{g(EPS / (c * c))} in place of ε: its largest change is {g(gap)}. (A negative factor would flip the "
        "signs.)",
        link("/invariances", **typed(x), inv_c=f"{c:g}", inv_b=f"{b:g}"),
    )  # fmt: skip


def _gamma_zero(rng: np.random.Generator) -> Question:
    beta = float(rng.choice([0.5, -1.0, 2.0]))
    return ask(
        rng, "gamma-zero", "γ = 0",
        f"Every γᵢ is 0 and every βᵢ is {g(beta)}. What does LayerNorm output for any input?",
        f"{g(beta)} in every feature",
        ["0 in every feature", "The normalized x̂", "The input x"],
        f"y = γ·x̂ + β = 0·x̂ + {g(beta)}: the input no longer matters. (So a trained γ near 0 switches a "
        "feature off — MiniLM's last LayerNorm does that to feature 223.)",
        link("/scale_shift", gamma="0", beta=f"{beta:g}"),
    )  # fmt: skip


def _rms_centring(rng: np.random.Generator) -> Question:
    x = np.sort(not_constant(rng, 1, 9, size=3))
    r, centred = rms_norm(x), layer_norm(x)  # ε = 1e-5 inside the root: the sidebar's, as Estimators uses it
    spread = float(x[0] / np.sqrt(float(variance(x)) + EPS))  # x₁ over the spread, without centring
    m = float(mean(r))
    return ask(
        rng, "rms-centring", "RMSNorm and LayerNorm of the same x",
        f"With ε = 1e−5 inside the root, LayerNorm's first output for x = {vec(x)} is {g(centred[0])}. "
        "What is RMSNorm's first output for the same x?",
        g(r[0]), [f"{g(centred[0])}, as LayerNorm's", f"{g(spread)} (x₁/√(σ² + ε))"],
        f"RMSNorm divides by √(mean of x² + ε) = √({g(float(mean(x * x)))} + 1e−5) and never subtracts μ, so an "
        f"all-positive input stays all-positive: {vec(r)}, mean {g(m)}. LayerNorm's output has mean 0; "
        "RMSNorm's only when the input's mean is 0.",
        link("/estimators_and_eps", **typed(x)),
    )  # fmt: skip


def _undo(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -2, 9)
    s = layer_norm_steps(x)  # ε = 1e-5, the sidebar's: Scale & shift's Undo takes σ (without ε) and μ from it
    mu, sigma = float(s.mu), float(s.sigma)
    other = 2.0 * x + 1.0  # another token: twice the spread, another mean, the same x̂
    gamma, beta = np.full(x.size, sigma), np.full(x.size, mu)
    other_y = layer_norm(other, gamma, beta)
    # |y − x| = |x − μ|·(1 − σ/√(σ² + ε)), written so that no two nearly equal numbers are subtracted
    root = float(np.sqrt(s.var + EPS))
    miss = float(np.max(np.abs(s.centered))) * EPS / (root * (root + sigma))
    return ask(
        rng, "undo", "γ = σ, β = μ on one token",
        f"For x = {vec(x)}: μ = {g(mu)}, σ = {g(sigma)}. With ε = 1e−5, γ = σ and β = μ in "
        "every feature, LayerNorm outputs…",
        f"{vec(x)}, x itself but for ε (largest |y − x| {g(miss)})", [vec(s.x_hat), vec(s.centered), "[0, 0, 0, 0]"],
        f"y = σ·(x − μ)/√(σ² + ε) + μ is x but for ε, which shrinks each xᵢ − μ by the factor σ/√(σ² + ε) "
        f"(the largest |y − x| is {g(miss)}), but only for this x: γ and β are shared by every token, while "
        f"μ and σ are each token's own. The same γ and β turn the token 2x + 1 = {vec(other)} into "
        f"{vec(other_y)}, not back into itself: its own mean and spread are gone. So the scale and shift cannot "
        "undo the normalization for every token at once. (A pre-LN transformer keeps each token's own scale in "
        "its residual stream, which its LayerNorms only read.)",
        link("/scale_shift", **typed(x), affine_mode="Undo for this vector: γ = σ, β = μ"),
    )  # fmt: skip


def _pre_post(rng: np.random.Generator) -> Question:
    return ask(
        rng, "pre-post", "pre-LN versus post-LN",
        "In a pre-LN transformer block (GPT-2), where does LayerNorm sit?",
        "At the start of each sublayer's branch: x + Sublayer(LN(x)); the residual path itself is never normalized",
        [
            "After the residual add: LN(x + Sublayer(x)), as in the original BERT",
            "Only once, after the last block",
            "Between the attention heads",
        ],
        "Post-LN (BERT, the original transformer) normalizes the sum after each add. Pre-LN normalizes only the "
        "input of each branch, so the residual stream is an unnormalized sum that grows with depth — one reason a "
        "final LayerNorm is added at the end — and gradients flow well without warm-up (Xiong et al. 2020). "
        "LLaMA and Mistral place RMSNorm, not LayerNorm, the same way.",
        link(
            "/depth_and_drift",
            depth_norm="LayerNorm",
            depth_residual="true",
            depth_placement="pre-LN: before the sublayer (GPT-2)",
        ),
    )  # fmt: skip


def _eps_units(rng: np.random.Generator) -> Question:
    k = float(rng.choice([10.0, 100.0]))  # scales Invariances' c offers
    return ask(
        rng, "eps-units", "ε and the scale of the inputs",
        f"You multiply every input by {k:g} (so σ grows {k:g}×). For ε to have the same effect, it must grow…",
        f"{k**2:g}× (ε is added to σ², in units of x²)", [f"{k:g}×", "not at all: ε is dimensionless"],
        "ε sits inside the square root next to σ², so it has the units of x squared: scaling x by k scales σ² by "
        f"k² = {k**2:g}, and ε must follow to keep the same ratio σ²/(σ² + ε).",
        link("/invariances", inv_c=f"{k:g}"),
    )  # fmt: skip


BUILDERS: tuple[Callable[[np.random.Generator], Question], ...] = (
    _divide_by,
    _eps_near_constant,
    _which_axis,
    _how_many_stats,
    _running_mean,
    _keras_momentum,
    _batch_of_one,
    _train_vs_eval,
    _invariance,
    _gamma_zero,
    _rms_centring,
    _undo,
    _pre_post,
    _eps_units,
    *quiz_more.BUILDERS,
    *quiz_numerics.BUILDERS,
    *quiz_recent.BUILDERS,
)


def _draw(build: Callable[[np.random.Generator], Question], rng: np.random.Generator) -> Question:
    """Build one question, drawing new numbers while two of its options would read the same."""
    for _ in range(100):
        try:
            return build(rng)
        except RepeatedOptions:
            continue
    raise RuntimeError(f"{build.__name__} kept drawing repeated options")  # pragma: no cover


def make_quiz(seed: int) -> tuple[Question, ...]:
    """Every question with numbers drawn from ``seed``, in a shuffled order.

    Parameters
    ----------
    seed : int
        Non-negative; the same seed gives the same quiz (numbers, order, option order).

    Returns
    -------
    tuple of Question
        One per misconception (one per builder of :data:`BUILDERS`), each answer computed by the core.

    Raises
    ------
    ValueError
        ``seed`` is negative.

    Notes
    -----
    Source: this project.
    """
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    rng = np.random.default_rng(seed)
    questions = [_draw(build, rng) for build in BUILDERS]
    order = rng.permutation(len(questions))
    return tuple(questions[i] for i in order)
