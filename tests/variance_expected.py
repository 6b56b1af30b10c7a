"""The Variance page's numbers as it wrote them before its sliders were live, computed here from the
core and ``ui.text``: what ``tests/test_live_variance.py`` expects in the frames and
``tests/test_pages_steps.py`` on the page.
"""

from __future__ import annotations

import math

import numpy as np

import layernorm as ln
from layernorm.variants import layer_norm_unbiased, variance_one_pass
from ui.live import variance
from ui.text import digits_to_separate, fmt, rounding_noise, tex_minus, tex_num


def expected(x: np.ndarray, eps: float, a: float) -> dict[str, object]:
    """What the page showed for a before it had a live slider (its own code, written out)."""
    xa = x * a
    d = x.size
    steps = ln.layer_norm_steps(xa, eps=eps)
    var = float(steps.var)
    var_sample = float(ln.variance(xa, ddof=1)) if d > 1 else float("nan")
    mu_digits = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    var_digits = digits_to_separate([var, var_sample], same_within=rounding_noise(var))
    tex = (
        rf"\sigma^2 = \frac{{1}}{{d}}\sum_{{i=1}}^{{d}}(x_i-\mu)^2 = \frac{{1}}{{{d}}}"
        rf"\sum_i (x_i {tex_minus(float(steps.mu), mu_digits)})^2 = {tex_num(var, var_digits)}"
    )
    sigma2 = [
        ("σ² (÷d, population)", fmt(var, var_digits)),
        ("σ = √σ²", fmt(float(steps.sigma))),
        ("÷(d−1) would give", fmt(var_sample, var_digits) if d > 1 else "undefined (d = 1)"),
    ]
    readouts: list[tuple[str, str | None, list[tuple[str, str]]]] = [(variance.SIGMA2, tex, sigma2)]
    if d > 1:
        shown = [
            float(ln.variance(ln.standardize(xa, eps=eps))),
            float(ln.variance(layer_norm_unbiased(xa, eps=eps))),
            (d - 1) / d,
        ]
        xhat_digits = digits_to_separate(shown, 6, against=[1.0], same_within=rounding_noise(1.0))
        readouts.append(
            (
                variance.XHAT,
                None,
                [
                    ("variance of x̂ with ÷d", fmt(shown[0], xhat_digits)),
                    ("variance of x̂ with ÷(d−1)", fmt(shown[1], xhat_digits)),
                    ("(d − 1)/d", fmt(shown[2], xhat_digits)),
                ],
            )
        )
    line = var_sample if d > 1 else var
    return {
        "readouts": readouts,
        "trace": steps.squared_deviations,
        "lines": [[var, f"σ² (÷d) = {fmt(var, var_digits)}"], [line, f"÷(d−1) = {fmt(line, var_digits)}"]],
    }


def passes_expected(x: np.ndarray, a: float, offset: float) -> list[tuple[str, str, str | None]]:
    """The float32 trap's two metrics (label, value, delta) as the page wrote them before."""
    shifted = x * a + offset
    exact = float(ln.variance(shifted))
    naive = float(variance_one_pass(shifted, dtype=np.float32))
    digits = digits_to_separate([exact, naive], 6)
    if math.isfinite(naive):
        one = (fmt(naive, digits), "negative: √ would give NaN" if naive < 0 else None)
    else:
        one = ("overflow", "x² exceeds float32's 3.4e38")
    return [
        ("two-pass, float64 (this lab)", fmt(exact, digits), None),
        ("one-pass E[x²] − μ² in float32", *one),
    ]
