"""Recorded cases where a LayerNorm kernel that computes in its input's dtype goes wrong.

Each :class:`KernelFact` quotes one case of ``tests/data/reference_cases.json``: its input, what
PyTorch 2.13's CPU kernel returned, and what goes wrong in words. The Precision page runs
:func:`layernorm.labs.precision.layer_norm_in_dtype` on each input beside them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelFact:
    """A recorded case (``tests/data/reference_cases.json``) where a same-dtype kernel goes wrong.

    Attributes
    ----------
    case_id : str
        The case's id in the reference file.
    x : tuple of float
        The input vector (before rounding to ``dtype``).
    dtype : str
    eps : float
    torch_observed : tuple of float
        What PyTorch 2.13's CPU kernel returned for it (strings "nan" become NaN).
    note : str
        What goes wrong, in words.

    Notes
    -----
    Source: this project's reference cases (``torch_2_13_cpu_observed`` and ``naive_*`` fields).
    """

    case_id: str
    x: tuple[float, ...]
    dtype: str
    eps: float
    torch_observed: tuple[float, ...]
    note: str


KERNEL_FACTS: tuple[KernelFact, ...] = (
    KernelFact(
        "LN09_offset_4e4_float32",
        (40000.0, 40001.0, 40002.0, 40003.0),
        "float32",
        1e-5,
        (-1.3416354656219482, -0.4472118318080902, 0.4472118318080902, 1.3416354656219482),
        "one-pass variance -128 instead of 1.25: NaN (as in ONNX Runtime CPU); PyTorch's kernel is fine",
    ),
    KernelFact(
        "LN20_constant_float32_onepass_negative_var",
        (1234.567, 1234.567, 1234.567),
        "float32",
        1e-5,
        (0.0, 0.0, 0.0),
        "a constant row: one-pass variance -0.125 instead of 0, so NaN instead of beta",
    ),
    KernelFact(
        "LN13_fp16_zero_input_tiny_eps",
        (0.0,) * 10,
        "float16",
        1e-12,
        (0.0,) * 10,
        "eps = 1e-12 rounds to 0 in float16, so an all-zero row gives 0/0 with any variance method",
    ),
    KernelFact(
        "LN15_torch_default_eps_1e-5",
        (0.09484422, 0.16441762),
        "float32",
        1e-5,
        (-0.995893657207489, 0.995893657207489),
        "a tiny spread: one-pass float32 is off in the 7th digit (-0.995893121 vs -0.995893657)",
    ),
)
