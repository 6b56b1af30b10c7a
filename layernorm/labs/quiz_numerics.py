"""Quiz questions on what low precision does to LayerNorm and RMSNorm: the one-pass variance in
float32, a sum of squares that overflows, an ε that rounds to 0, and where RMSNorm's ε goes.

Each answer comes from the kernels the Precision and Estimators and ε pages run
(:func:`layernorm.labs.precision.layer_norm_in_dtype`, :func:`layernorm.variants.compare_rms_placement`),
and each link opens that page on the question's own numbers (see :mod:`layernorm.labs.quiz`).

Source: this project (teaching material); the recorded kernel cases are in
:mod:`layernorm.labs.kernel_facts`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from layernorm.core import DEFAULT_EPS, layer_norm, mean, variance
from layernorm.family import rms_norm
from layernorm.labs.precision import STATUS_WORDS, DtypeRun, layer_norm_in_dtype, numpy_dtype
from layernorm.labs.quiz_kit import (
    Question,
    RepeatedOptions,
    ask,
    full,
    g,
    link,
    not_constant,
    typed,
    vec,
    vec_exact,
)
from layernorm.variants import compare_rms_placement

# Constant rows whose one-pass float32 variance is not 0 (either sign): three copies of each.
CONSTANTS = (1234.567, 7777.7, 999.9, 2468.2, 1000.1, 6543.21)
NEAR_4E4 = 40000.0  # its square, 1.6e9, is stored to the nearest 128 in float32: a spread of units is lost
HUGE = (20, 25, 30)  # powers of 10: float32 inputs whose deviations' squares pass float32's largest number
FLOAT16_EPS = (1e-12, 1e-10, 1e-8, 1e-7, 1e-5)  # sidebar ε values on either side of float16's smallest


def _precision_link(x: np.ndarray, dtype: str, eps: float = DEFAULT_EPS) -> str:
    """Precision at offset 0: its formula and verdicts are those of ``x`` itself in ``dtype``."""
    extra = {} if eps == DEFAULT_EPS else {"eps": f"{eps:.0e}"}  # the sidebar's ε as its link writes it
    return link("/precision", **typed(x), **extra, prec_dtype=dtype, prec_offset="0")


def _one_pass_texts(run: DtypeRun, exact: float, kinds: tuple[str, ...]) -> tuple[str, list[str]]:
    """The right option for a one-pass float32 run (what its σ² was and what it did to x̂), and the
    ``kinds`` of result (of "negative", "zero", "positive") it did not give, as wrong ones."""
    var, x_hat = float(run.var[0]), run.x_hat[0]
    if var == exact:
        raise RepeatedOptions(f"the one-pass variance is exact here ({var})")
    words = {
        "negative": "a negative number: √(σ² + ε) is undefined, so every output is NaN",
        "zero": "exactly 0: the spread is lost, so x − μ is divided by √ε alone",
        "positive": f"a positive number other than {g(exact)}: the outputs are finite but off",
    }
    if var < 0:
        kind, right = "negative", f"{g(var)}: negative, so √(σ² + ε) is undefined and every output is NaN"
    elif var == 0:
        kind, right = "zero", f"0: the spread is lost, and x − μ is divided by √ε alone: x̂ = {vec(x_hat)}"
    else:
        kind, right = "positive", f"{g(var)}: positive but wrong, so x̂ = {vec(x_hat)}"
    return right, [words[k] for k in kinds if k != kind]


def _one_pass_float32(rng: np.random.Generator) -> Question:
    x = NEAR_4E4 + not_constant(rng, 0, 8)
    run = layer_norm_in_dtype(x, dtype="float32", method="one_pass")
    exact = float(variance(x))
    right, wrong = _one_pass_texts(run, exact, ("negative", "zero", "positive"))
    two = float(layer_norm_in_dtype(x, dtype="float32", method="two_pass").var[0])
    return ask(
        rng, "one-pass-float32", "the one-pass variance in float32",
        f"A float32 kernel computes σ² in one pass, as mean(x²) − μ², then x̂ = (x − μ)/√(σ² + ε) with "
        f"ε = 1e−5. For x = {vec_exact(x)} its σ² is…",
        right, [f"{g(exact)}, the exact σ²", *wrong][:3],
        f"In float32, mean(x²) = {full(float(run.mean_sq[0]))} and μ² = {full(float(run.mu_sq[0]))}: float32 "
        f"numbers near {g(NEAR_4E4**2)} are {full(float(np.spacing(np.float32(NEAR_4E4**2))))} apart, "
        f"so their difference is their rounding, {g(float(run.var[0]))}, not the exact σ² = {g(exact)}. The "
        f"two-pass formula subtracts μ first and squares numbers of a few units: in float32 it gives {g(two)}.",
        _precision_link(x, "float32"),
    )  # fmt: skip


def _one_pass_constant(rng: np.random.Generator) -> Question:
    c = float(rng.choice(CONSTANTS))
    x = np.full(3, c)
    run = layer_norm_in_dtype(x, dtype="float32", method="one_pass")
    right, wrong = _one_pass_texts(run, 0.0, ("negative", "positive"))
    two = float(layer_norm_in_dtype(x, dtype="float32", method="two_pass").var[0])
    two_says = (
        "the two-pass formula in float32 gives 0 too"
        if two == 0
        else f"even the two-pass formula in float32 gives {g(two)} here, because μ itself is rounded; "
        "the lab's float64 core gives exactly 0"
    )
    return ask(
        rng, "one-pass-constant", "a fast one-pass variance on a constant row",
        f"A fast kernel computes σ² in one pass, as mean(x²) − μ², in float32, then x̂ = (x − μ)/√(σ² + ε) "
        f"with ε = 1e−5. The row x = {vec_exact(x)} is constant, so its exact σ² is 0. The kernel's σ² is…",
        right, ["0, the exact σ²: every output is 0", *wrong],
        f"In float32, mean(x²) = {full(float(run.mean_sq[0]))} and μ² = {full(float(run.mu_sq[0]))} are each "
        f"rounded on their own, so their difference is {g(float(run.var[0]))} instead of 0"
        + (": a negative variance, whose root is undefined." if float(run.var[0]) < 0 else ".")
        + f" Some kernels clamp it at 0; {two_says}.",
        _precision_link(x, "float32"),
    )  # fmt: skip


def _square_overflow(dtype: str, x: np.ndarray, rng: np.random.Generator) -> Question:
    """The two-pass kernel in ``dtype`` on ``x``: does (x − μ)² overflow?"""
    run = layer_norm_in_dtype(x, dtype=dtype, method="two_pass")
    status, largest = str(run.status[0]), float(np.finfo(numpy_dtype(dtype)).max)
    exact_hat, exact = layer_norm(x), float(variance(x))
    texts = {
        "ok": f"nothing overflows: σ² = {g(exact)} and x̂ = {vec(exact_hat)}, as in float64",
        "square_overflow": f"(x − μ)² passes {dtype}'s largest number, {g(largest)}: σ² = ∞",
        "input_overflow": f"the input itself overflows {dtype}: it becomes ∞",
    }
    if status == "ok":
        right = f"nothing overflows: σ² = {g(float(run.var[0]))} and x̂ = {vec(run.x_hat[0])}"
    else:
        right = f"{STATUS_WORDS[status]}; x̂ comes out {vec(run.x_hat[0])}"
    wrong = [text for k, text in texts.items() if k != status]
    return ask(
        rng, f"square-overflow-{dtype}", f"the two-pass variance in {dtype}",
        f"A kernel computes LayerNorm's two-pass variance mean((x − μ)²) entirely in {dtype}, then x̂ = "
        f"(x − μ)/√(σ² + ε) with ε = 1e−5. For x = {vec_exact(x)}…",
        right, wrong[:2],
        f"The largest {dtype} number is {g(largest)}. Here the deviations x − μ reach "
        f"{g(float(np.max(np.abs(x - mean(x)))))}, whose square is {g(float(np.max((x - mean(x)) ** 2)))}"
        + (f": it overflows to ∞, so σ² = ∞ and x̂ = (x − μ)/√∞ comes out {vec(run.x_hat[0])}."
           if status == "square_overflow" else "." if status == "ok" else f": {STATUS_WORDS[status]}.")
        + " Subtracting μ first protects the variance from a large offset, not from large deviations; the "
        "lab's core works in float64 and rescales squares that would leave its range.",
        _precision_link(x, dtype),
    )  # fmt: skip


def _square_overflow_float32(rng: np.random.Generator) -> Question:
    power = int(rng.choice(HUGE))  # k·10^power written as "ke+power": the link types exactly these numbers
    return _square_overflow(
        "float32", np.array([float(f"{k:g}e{power}") for k in not_constant(rng, -3, 4)]), rng
    )


def _square_overflow_float16(rng: np.random.Generator) -> Question:
    return _square_overflow("float16", 100.0 * not_constant(rng, -3, 9), rng)


def _eps_underflow(rng: np.random.Generator) -> Question:
    eps = float(rng.choice(FLOAT16_EPS))
    x = np.zeros(4)
    run = layer_norm_in_dtype(x, dtype="float16", method="two_pass", eps=eps)
    stored = float(np.asarray(eps, dtype=numpy_dtype("float16")))
    texts = {
        "zero_divisor": "NaN in every feature: ε rounds to 0 in float16, so x̂ = 0/0",
        "ok": "0 in every feature: ε survives in float16, so x̂ = 0/√ε = 0",
    }
    status = str(run.status[0])
    if status == "zero_divisor":
        right = f"NaN in every feature: ε = {g(eps)} rounds to 0 in float16, so x̂ = 0/0"
    else:
        right = f"{vec(run.x_hat[0])}: ε = {g(eps)} is stored as {g(stored)} in float16, so x̂ = 0/√ε = 0"
    return ask(
        rng, "eps-underflow-float16", "ε in float16 on an all-zero row",
        f"A kernel computes LayerNorm entirely in float16, with ε = {g(eps)}, on an all-zero row x = {vec(x)} "
        "(a padding token, say). Its output is…",
        right,
        [*(text for k, text in texts.items() if k != status), "1 and −1: LayerNorm's output always has unit spread"],
        f"σ² = 0, so x̂ = 0/√ε and only ε keeps it defined. float16's smallest positive number is 2⁻²⁴ ≈ "
        f"{g(2.0**-24)}: ε = {g(eps)} is stored as {g(stored)}"
        + (", so σ² + ε = 0 and 0/0 is NaN." if stored == 0 else ", so σ² + ε > 0 and x̂ = 0."),
        _precision_link(x, "float16", eps),
    )  # fmt: skip


def _rms_eps_placement(rng: np.random.Generator) -> Question:
    x = not_constant(rng, -6, 7) / 100.0  # hundredths: written exactly in a typed link
    eps = float(rng.choice([1e-2, 1e-3, 1e-4]))
    cmp = compare_rms_placement(x, eps=eps)
    inside, outside = float(cmp.standard[0]), float(cmp.variant[0])
    bare = float(rms_norm(x, eps=0.0)[0])
    mean_sq = float(mean(x * x))
    return ask(
        rng, "rms-eps-placement", "ε inside or outside RMSNorm's root",
        f"RMSNorm of x = {vec_exact(x)} with ε = {g(eps)}. PyTorch adds ε inside the root, x/√(mean(x²) + ε); the "
        "RMSNorm authors' code adds it outside, x/(RMS(x) + ε). Their first outputs are…",
        f"inside: {g(inside)}; outside: {g(outside)}",
        [f"inside: {g(outside)}; outside: {g(inside)}", f"both {g(bare)}: ε is too small to matter"],
        f"Inside the root ε is added to mean(x²) = {g(mean_sq)}, in units of x²; outside it is added to RMS(x) = "
        f"{g(float(np.sqrt(mean_sq)))}, in units of x. The same ε is a different share of each, so the two "
        f"recipes differ; without ε the first output would be {g(bare)}.",
        link("/estimators_and_eps", **typed(x), eps=f"{eps:.0e}"),
    )  # fmt: skip


BUILDERS: tuple[Callable[[np.random.Generator], Question], ...] = (
    _one_pass_float32,
    _one_pass_constant,
    _square_overflow_float32,
    _square_overflow_float16,
    _eps_underflow,
    _rms_eps_placement,
)
