"""Gradients' formulas, metrics and sentences, made from the core's backward pass and Jacobian.

The arithmetic of one feature's ∂L/∂xᵢ, the finite-difference check of ∂L/∂x, ∂L/∂γ and ∂L/∂β, and
what the Jacobian's numbers show. Every number comes from :mod:`layernorm` (``layernorm.backward``,
``layernorm.gradient_check``, ``layernorm.jacobian``); this module only picks and formats them (the
page draws them, with its controls and charts).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import layernorm as ln
from layernorm.gradient_check import CHECK_STEPS
from ui.text import ROUNDING_K, digits_to_separate, fmt, fmt_zero, rounding_help, tex_minus, tex_num

MUCH_SMALLER = 0.01  # "ε ≪ σ²" when ε/(σ² + ε) is at most this
MAX_JACOBIAN_D = 16  # a 16 × 16 grid is the most a projected heatmap shows readably

# What the check can nudge: the core's parameter name → (the page's letter, what it is)
NUDGED = {"x": ("x", "the input"), "gamma": ("γ", "the scale"), "beta": ("β", "the shift")}
CHECK_SYMBOL = {p: letter for p, (letter, _) in NUDGED.items()}
CHECK_WHAT = {p: f"{letter}ᵢ ({role})" for p, (letter, role) in NUDGED.items()}
CHECK_H_START = 1e-5
SHOWN_DIGITS = 15  # float64's: where the finite difference parts from the backward pass is visible
# Why rounding grows as h shrinks, said the same way for every parameter.
CANCELLING = (
    "the two values of L share more and more leading digits, and their difference keeps only the rest."
)


def feature_latex(terms: ln.LayerNormBackwardTerms, i: int) -> tuple[str, str]:
    """Feature ``i``'s (from 0) ∂L/∂xᵢ with its numbers, then as the sum of its three terms."""
    digits = digits_to_separate([terms.g[i], terms.mean_g, terms.mean_g_x_hat, terms.x_hat[i]], 4)

    def paren(v: float) -> str:
        """A number for a product in LaTeX: negative ones in parentheses."""
        return tex_num(v, digits) if v >= 0 else rf"({tex_num(v, digits)})"

    return (
        rf"\frac{{\partial L}}{{\partial x_{{{i + 1}}}}} = \frac{{1}}{{{tex_num(terms.std)}}}\Big("
        rf"{tex_num(terms.g[i], digits)} {tex_minus(terms.mean_g, digits)}"
        rf" - {paren(terms.x_hat[i])} \cdot {paren(terms.mean_g_x_hat)}\Big)"
        rf" = {tex_num(terms.dx[i], 6)}",
        rf"\text{{as three terms:}}\quad {tex_num(terms.term_g[i], digits)}"
        rf"\ + {paren(terms.term_mean[i])}\ + {paren(terms.term_proj[i])}"
        rf" = {tex_num(terms.dx[i], 6)}",
    )


def step_text(h: float) -> str:
    """A step h as the page writes it: 1e−5."""
    return f"{h:.0e}".replace("e-0", "e−").replace("e-", "e−")


def subscript(i: int) -> str:
    return str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def check_latex(i: int, g_i: float, x_hat_i: float, dgamma_i: float, dbeta_i: float) -> str:
    """∂L/∂γᵢ and ∂L/∂βᵢ of feature ``i`` (from 1), with their numbers."""
    x_hat_tex = tex_num(x_hat_i) if x_hat_i >= 0 else rf"({tex_num(x_hat_i)})"
    return (
        rf"\frac{{\partial L}}{{\partial \gamma_{{{i}}}}} = g_{{{i}}}\,\hat x_{{{i}}}"
        rf" = {tex_num(g_i)} \cdot {x_hat_tex} = {tex_num(dgamma_i)},"
        rf"\qquad \frac{{\partial L}}{{\partial \beta_{{{i}}}}} = g_{{{i}}} = {tex_num(dbeta_i)}"
    )


def check_metrics(check: ln.FiniteDifferenceCheck, what: str, i: int, h: float) -> list[tuple[str, str]]:
    """(label, value): the backward pass's number, the finite difference at ``h``, their difference."""
    k = CHECK_STEPS.index(h)
    return [
        (f"backward pass ∂L/∂{CHECK_SYMBOL[what]}{subscript(i)}", fmt(check.analytic, SHOWN_DIGITS)),
        (f"finite difference, h = {step_text(h)}", fmt(float(check.numeric[k]), SHOWN_DIGITS)),
        ("|difference|", fmt(float(check.errors[k]), 2)),
    ]


def check_sentence(check: ln.FiniteDifferenceCheck, what: str) -> str:
    """What the curve shows, from its own numbers."""
    best = check.best
    exact = [step_text(h) for h, e in zip(CHECK_STEPS, check.errors, strict=True) if e == 0]
    name = CHECK_SYMBOL[what]
    if len(exact) == len(CHECK_STEPS):  # nothing to explain: neither the step nor rounding left an error
        flat = (
            f"L does not change when {name}ᵢ moves (∂L/∂{name}ᵢ = 0, and both values of L are the same "
            "number at every h)"
            if check.analytic == 0 and not np.any(check.numeric)
            else "the step and rounding left no error on these numbers"
        )
        return (
            f"Here the two agree exactly at every step h (so the log chart has no point to draw): {flat}. "
            "Pick another feature, nudge or upstream gradient g to see them part."
        )
    if exact:
        said = f"Here the two agree exactly at h = {', '.join(exact)} (left out of the log chart). "
    else:
        said = (
            f"Here the two agree best at h = {step_text(CHECK_STEPS[best])} "
            f"(|difference| {fmt(float(check.errors[best]), 2)}). "
        )
    if what == "x":
        return said + (
            "A central difference (L(xᵢ + h) − L(xᵢ − h))/2h is off in two ways: by how L curves in xᵢ, "
            "a part that shrinks like h² as h shrinks, and by rounding, a part that grows like 1/h: "
            f"{CANCELLING}"
        )
    return said + (
        f"L is a straight line in {name}ᵢ (a nudge of h moves L by h·∂L/∂{name}ᵢ), so the step's size adds "
        f"no error of its own; what separates the two is rounding, which grows like 1/h as h shrinks: "
        f"{CANCELLING}"
    )


def jacobian_too_big(d: int) -> str:
    return (
        f"Your vector has d = {d} features: its Jacobian has {d * d:,} entries, too many "
        f"to read as a picture. The heatmap is drawn for d ≤ {MAX_JACOBIAN_D}: choose Preset with a "
        f"size d ≤ {MAX_JACOBIAN_D} in the sidebar, or type up to {MAX_JACOBIAN_D} numbers."
    )


def jacobian_latex(facts: ln.LayerNormJacobian, d: int) -> str:
    return (
        r"J = \frac{\partial y}{\partial x} = \frac{\operatorname{diag}(\gamma)}{\hat\sigma}"
        r"\Big(I - \tfrac{1}{d}\mathbf{1}\mathbf{1}^\top - \tfrac{1}{d}\hat x\hat x^\top\Big)"
        rf",\qquad \hat\sigma = {tex_num(facts.std, 6)},\ d = {d}"  # 6, as the backward caption: 0.50001
    )


def jacobian_metrics(facts: ln.LayerNormJacobian, d: int) -> list[dict[str, Any]]:
    """The keyword arguments of the three metrics: the largest row sum, column sum and asymmetry."""
    scale, k_round = facts.rounding_scale, ROUNDING_K + d
    return [
        {
            "label": "largest |row sum|",
            "value": fmt_zero(facts.max_abs_row_sum, scale, k=k_round),
            "help": "Each row sums to 0 for any γ and ε: shifting every xⱼ by the same amount moves no yᵢ. "
            + rounding_help(facts.max_abs_row_sum, scale, k_round),
        },
        {
            "label": "largest |column sum|",
            "value": fmt_zero(facts.max_abs_col_sum, scale, k=k_round),
            "help": "0 when γ is the same for every feature; per-feature γ weights the rows differently.",
        },
        {
            "label": "largest |J − Jᵀ|",
            "value": fmt_zero(facts.asymmetry, scale, k=k_round),
            "help": "J is symmetric when γ is the same for every feature (diag(γ) is then a number).",
        },
    ]


def jacobian_notes(facts: ln.LayerNormJacobian, d: int, constant: bool) -> list[str]:
    """What the Jacobian's numbers show: its symmetry, d = 2's closed form, a constant vector's size."""
    shared = bool(np.all(facts.gamma == facts.gamma[0]))
    notes = []
    if shared:
        notes.append("γ is the same for every feature, so J is symmetric and its columns sum to 0 too.")
    else:
        notes.append("γ differs per feature, so row i is scaled by γᵢ: J is no longer symmetric.")
    if d == 2:
        stretch = "|γ|·ε/σ̂³" if shared else "ε/σ̂³ · √((γ₁² + γ₂²)/2)"
        # x̂ is ±σ/σ̂ · (1, −1): shown apart from ±1 whenever ε moved it (0.99996, not 1)
        kx = digits_to_separate(facts.x_hat, 4, against=[-1.0, 1.0])
        notes.append(
            f"d = 2: x̂ = ({fmt(facts.x_hat[0], kx)}, {fmt(facts.x_hat[1], kx)}) and "
            f"J = diag(γ)·ε/σ̂³·(I − 11ᵀ/2) exactly, with ε/σ̂³ = {fmt(facts.eps_over_std3)}: "
            "the share ε/(σ² + ε) = "
            f"{fmt(facts.eps_share)} of diag(γ)/σ̂·(I − 11ᵀ/2). Its largest stretch is {stretch} = "
            f"{fmt(facts.spectral_norm)}. "
            + (
                "Here ε ≪ σ², so x̂ is almost ±(1, −1) and almost nothing can move y."
                if facts.eps_share <= MUCH_SMALLER
                else "Here ε is not ≪ σ², so x̂ lies inside ±(1, −1) and y still moves with x."
            )
        )
    if constant and d == 1:
        notes.append("With one feature x̂ = 0 for every x, so J = 0: nothing but β reaches y.")
    elif constant and facts.max_abs_entry == 0:
        notes.append(
            "Your vector is constant: x̂ = 0 and J = diag(γ)(I − 11ᵀ/d)/√ε, which is 0 here because γ = 0: "
            "y = β whatever x is."
        )
    elif constant:
        notes.append(
            f"Your vector is constant: x̂ = 0 and J = diag(γ)(I − 11ᵀ/d)/√ε, entries up to "
            f"{fmt(facts.max_abs_entry)} — only ε keeps them finite."
        )
    return notes
