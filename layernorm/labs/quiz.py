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

from layernorm.batch import batch_norm_train
from layernorm.core import layer_norm, mean, variance
from layernorm.family import rms_norm
from layernorm.labs import quiz_more, quiz_numerics
from layernorm.labs.lens_counts import stat_counts
from layernorm.labs.quiz_kit import Question, RepeatedOptions, ask, g, link, not_constant, typed, vec
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
        rng, "eps-near-constant", "where ε goes",
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


def _running_mean(rng: np.random.Generator) -> Question:
    old, batch_mean = float(rng.integers(0, 5)), float(rng.integers(6, 12))
    x = np.array([[batch_mean - 1.0], [batch_mean + 1.0]])  # a batch of 2 with that mean, one channel
    _, new_mean, _ = batch_norm_train(x, None, None, [old], [1.0], momentum=0.1)
    right = float(new_mean[0])
    return ask(
        rng, "running-mean", "BatchNorm's running statistics (PyTorch)",
        f"PyTorch BatchNorm, momentum = 0.1. The running mean is {g(old)} and a training batch has mean "
        f"{g(batch_mean)}. The new running mean is…",
        g(right), [g(0.1 * old + 0.9 * batch_mean), g(batch_mean), g((old + batch_mean) / 2)],
        f"PyTorch: new = (1 − momentum)·old + momentum·batch = 0.9·{g(old)} + 0.1·{g(batch_mean)} = {g(right)}. "
        "The running mean moves only a tenth of the way each step.",
        link("/train_vs_inference", tvi_momentum="0.1"),
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
    x = not_constant(rng, -3, 7)
    y = layer_norm(x)
    return ask(
        rng, "train-eval", "LayerNorm in training and inference",
        f"LayerNorm gives {vec(y)} for x = {vec(x)} during training. After model.eval(), the same x gives…",
        f"{vec(y)}, the same", ["Something else: it now uses running statistics", "x itself: LayerNorm is off in eval"],
        "LayerNorm keeps no running statistics: it always normalizes with the token's own μ and σ, so training "
        "and inference compute exactly the same function. BatchNorm is the one that switches.",
        link("/train_vs_inference", tvi_mode="Inference"),
    )  # fmt: skip


def _invariance(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -3, 7)
    c, b = float(rng.choice([2.0, 10.0, 100.0])), float(rng.choice([5.0, 3.0, 10.0]))  # Invariances' c and b
    y = layer_norm(x, eps=0.0)
    return ask(
        rng, "invariance", "shift and positive-scale invariance",
        f"With ε = 0, LayerNorm({vec(x)}) = {vec(y)}. What is LayerNorm({g(c)}·x + {g(b)})?",
        f"{vec(y)}, unchanged", [vec(c * y + b), vec(c * y), vec(-y)],
        f"Multiplying by {g(c)} > 0 multiplies x − μ and σ alike, and adding {g(b)} moves x and μ alike: x̂ "
        "cannot see either. (A negative factor would flip the signs; with ε > 0 the scale invariance is only "
        "approximate.)",
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
    r = rms_norm(x, eps=0.0)
    m = float(mean(r))
    return ask(
        rng, "rms-centring", "RMSNorm does not centre",
        f"RMSNorm (ε = 0) of x = {vec(x)}. What is the mean of its output?",
        g(m), ["0, like LayerNorm", "1", g(float(mean(x)))],
        f"RMSNorm divides by √(mean of x²) and never subtracts μ, so an all-positive input stays all-positive: "
        f"{vec(r)}, mean {g(m)}. LayerNorm's output has mean 0; RMSNorm's only when the input's mean is 0.",
        link("/which_axis", axes_lens="RMSNorm"),
    )  # fmt: skip


def _undo(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -2, 9)
    s = layer_norm_steps(x, eps=0.0)
    mu, sigma = float(s.mu), float(s.sigma)
    other = 2.0 * x + 1.0  # another token: twice the spread, another mean, the same x̂
    gamma, beta = np.full(x.size, sigma), np.full(x.size, mu)
    other_y = layer_norm(other, gamma, beta, eps=0.0)
    return ask(
        rng, "undo", "γ = σ, β = μ undoes it for one token",
        f"For x = {vec(x)}: μ = {g(mu)}, σ = {g(sigma)}. With ε = 0, γ = σ and β = μ in "
        "every feature, LayerNorm outputs…",
        f"{vec(x)}, x itself", [vec(s.x_hat), vec(s.centered), "[0, 0, 0, 0]"],
        f"y = σ·(x − μ)/σ + μ = x, but only for this x: γ and β are shared by every token, while μ and σ are "
        f"each token's own. The same γ and β turn the token 2x + 1 = {vec(other)} into {vec(other_y)}, not "
        "back into itself: its own mean and spread are gone. So the scale and shift cannot undo the "
        "normalization for every token at once. (A pre-LN transformer keeps each token's own scale in its residual "
        "stream, which its LayerNorms only read.)",
        link("/scale_shift", **typed(x), affine_mode="Undo for this vector: γ = σ, β = μ", eps="1e-12"),
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
        rng, "eps-units", "what ε is added to",
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
