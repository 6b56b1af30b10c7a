"""The worksheet's formula in HTML, with the page's live numbers and the digits the pages choose.

Everything here is built from numbers and fixed text only (no user text), so it is markup the
worksheet's template takes as it is. ``level`` is how far along the formula a step page is:
1 mean, 2 variance, 3 standardize, 4 scale and shift, 5 the whole formula.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

import layernorm as ln
from layernorm import LayerNormSteps
from ui.text import digits_to_add_up, digits_to_separate, rounding_noise, tex_num


def num(value: float, digits: int = 4) -> str:
    """A number as ``ui.text.tex_num`` writes it for the page, in HTML: ``1.2 × 10<sup>−5</sup>``."""
    tex = tex_num(value, digits)
    m = re.fullmatch(r"(.*) \\times 10\^\{(-?\d+)\}", tex)
    if m:
        return f"{m[1].replace('-', '−')} × 10<sup>{m[2].replace('-', '−')}</sup>"
    return tex.replace("-", "−")


def _paren(value: float, digits: int) -> str:
    """A number that is about to be squared or multiplied: in brackets when negative."""
    text = num(value, digits)
    return f"({text})" if value < 0 else text


def _sum(values: np.ndarray, digits: int, head: int = 4) -> str:
    """``x₁ + x₂ − x₃ + …`` with the signs folded in, as ``ui.text.tex_sum`` writes it."""
    shown = values[:head]
    digits = digits_to_separate(shown, digits)
    out = num(float(shown[0]), digits)
    for v in shown[1:].tolist():
        out += (" − " if v < 0 else " + ") + num(abs(v), digits)
    return out + (" + …" if values.size > head else "")


def _frac(top: str, bottom: str) -> str:
    return f'<span class="frac"><span>{top}</span><span>{bottom}</span></span>'


def _sqrt(inside: str) -> str:
    return f'√<span class="rad">{inside}</span>'


def _sub(i: int) -> str:
    return f"<sub>{i}</sub>"


@dataclass(frozen=True)
class Digits:
    """Significant digits of the statistics, chosen as the pages choose them."""

    mu: int
    var: int


def statistic_digits(level: int, steps: LayerNormSteps) -> Digits:
    # μ never looks like an x it differs from; σ² never like ε (the ÷(d−1) value on Variance)
    mu = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    var = float(steps.var)
    if level == 2:  # Variance: σ² never looks like its ÷(d−1) value
        var_digits = digits_to_separate([var, sample_variance(steps)], same_within=rounding_noise(var))
    else:
        var_digits = digits_to_separate([var], against=[steps.eps], same_within=rounding_noise(var))
    return Digits(mu, var_digits)


def sample_variance(steps: LayerNormSteps) -> float:
    """The ÷(d−1) variance the Variance page compares with (σ² itself when d = 1, as its chart does)."""
    return float(ln.variance(steps.x, ddof=1)) if steps.d > 1 else float(steps.var)


def formula_lines(level: int, steps: LayerNormSteps, feature: int) -> list[tuple[int, str]]:
    """``[(step, html), ...]``: the formula up to the page's step, each with the live numbers."""
    dg = statistic_digits(level, steps)
    d, mu, var = steps.d, float(steps.mu), float(steps.var)
    k = feature + 1
    lines = [
        (
            1,
            f"μ = {_frac('1', 'd')} Σ<sub>i</sub> x<sub>i</sub> = {_frac('1', str(d))}"
            f"({_sum(steps.x, dg.mu)}) = <b>{num(mu, dg.mu)}</b>",
        ),
    ]
    if level >= 2:
        squares = " + ".join(f"{_paren(float(c), 4)}²" for c in steps.centered[:3].tolist())
        more = " + …" if d > 3 else ""
        line = (
            f"σ² = {_frac('1', 'd')} Σ<sub>i</sub> (x<sub>i</sub> − μ)² = {_frac('1', str(d))}"
            f"({squares}{more}) = <b>{num(var, dg.var)}</b>"
        )
        lines.append((2, line))
        if level == 2:
            lines.append((2, f"σ = √σ² = <b>{num(float(steps.sigma))}</b>"))
    if level >= 3:
        x_k = float(steps.x[feature])
        minus = f"− {num(abs(mu), dg.mu)}" if mu >= 0 else f"+ {num(abs(mu), dg.mu)}"
        lines.append(
            (
                3,
                f"x̂<sub>i</sub> = {_frac('x<sub>i</sub> − μ', _sqrt('σ² + ε'))}, &nbsp; x̂{_sub(k)} = "
                f"{_frac(f'{num(x_k, dg.mu)} {minus}', _sqrt(f'{num(var, dg.var)} + {num(steps.eps)}'))}"
                f" = {_frac(num(float(steps.centered[feature])), num(float(steps.std)))}"
                f" = <b>{num(float(steps.x_hat[feature]))}</b>",
            )
        )
    if level >= 4:
        g, b = float(steps.gamma[feature]), float(steps.beta[feature])
        xh, y = float(steps.x_hat[feature]), float(steps.y[feature])
        n = digits_to_add_up([(g, xh, b, y)])  # the printed terms add up to the printed y
        sign = "−" if b < 0 else "+"
        lines.append(
            (
                4,
                f"y<sub>i</sub> = γ<sub>i</sub> x̂<sub>i</sub> + β<sub>i</sub>, &nbsp; y{_sub(k)} = "
                f"{num(g, n)} · {_paren(xh, n)} {sign} {num(abs(b), n)}"
                f" = <b>{num(y, n)}</b>",
            )
        )
    return lines


def scalars(level: int, steps: LayerNormSteps) -> list[tuple[str, str]]:
    dg = statistic_digits(level, steps)
    out = [("d", str(steps.d)), ("μ", num(float(steps.mu), dg.mu))]
    if level >= 2:
        out += [("σ²", num(float(steps.var), dg.var)), ("σ", num(float(steps.sigma)))]
    if level >= 3:
        out += [("ε", num(steps.eps)), ("√(σ² + ε)", num(float(steps.std)))]
    return out


def task(level: int, steps: LayerNormSteps) -> str:
    """A short "work it out" paragraph: what to check by hand in the table, with the page's numbers."""
    dg = statistic_digits(level, steps)
    d, mu, var = steps.d, num(float(steps.mu), dg.mu), num(float(steps.var), dg.var)
    if level == 1:
        text = (
            f"Add up the x column and divide by d = {d}: that is μ = {mu}. Then add up the x − μ column: "
            "it comes to 0 in exact arithmetic, because centring slides every feature by the same amount "
            "(the printed values are rounded, so a sum by hand may miss 0 in its last digits)."
        )
    elif level == 2:
        text = (
            f"Square each x − μ (the (x − μ)² column), add the squares and divide by d = {d}: that is "
            f"σ² = {var}, and its square root σ = {num(float(steps.sigma))}. Divide by d, not d − 1: the "
            "d numbers are the whole population LayerNorm rescales, not a sample."
        )
    elif level == 3:
        expected = float(steps.x_hat_var_expected)
        digits = digits_to_separate([expected], 6, against=[1.0], same_within=rounding_noise(1.0))
        if float(steps.var) == 0:
            why = "0, because this vector is constant: every x − μ is 0"
        elif expected >= 0.99:
            why = "just under 1, because of ε"
        else:
            why = "well under 1, because ε is not small next to σ² here"
        text = (
            f"Divide each x − μ by √(σ² + ε) = {num(float(steps.std))}: that is the x̂ column. x̂ has mean 0 "
            f"and variance σ² / (σ² + ε) = {num(expected, digits)}: {why}."
        )
    elif level == 4:
        text = (
            "Multiply each x̂ by its γ and add its β: that is the y column. With γ = 1 and β = 0, y is x̂; "
            "with this vector's own γ = σ and β = μ, y is this vector again (closely while ε ≪ σ²), and "
            "no other: a network's γ and β are shared by every token, each with its own μ and σ."
        )
    else:
        text = (
            "Read one row from left to right: that is the whole formula for one feature. μ and σ² are "
            "computed from this vector; γ and β are given to the formula (in a network, learned "
            "parameters shared by every token)."
        )
    return text
