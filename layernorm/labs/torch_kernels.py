"""PyTorch 2.13's CPU LayerNorm kernel in float32, step by step in its own order and precision.

``torch.nn.functional.layer_norm`` on a float32 CPU tensor computes each row's statistics with
``RowwiseMoments`` (``aten/src/ATen/native/cpu/moments_utils.h``): Welford's update in
:data:`LANES` lanes at once, the lanes' moments merged in a cascade, then the row's last
``d mod 8`` entries by a scalar Welford loop, and the lanes merged into it one by one. Then
``rstd = 1 / std::sqrt(var + eps)`` in float32, and ``y = ((x - mu) * rstd) * gamma + beta``
(``LayerNormKernelImplInternal`` in ``layer_norm_kernel.cpp``). Every operation is one float32
rounding, and where the compiled kernel fuses a multiply and an add (``fmadd``, or a contraction of
``a * b + c`` by the compiler) the pair is rounded once (:func:`~layernorm.labs.float32_affine.fma32`).

``fma=True`` is PyTorch's AVX2 build, which x86-64 CPUs with AVX2 run (AVX-512 CPUs too: this kernel
has no AVX-512 build); ``fma=False`` its default build (``ATEN_CPU_CAPABILITY=default``), where every
product is rounded before it is added. Both were checked bit for bit against recorded outputs
(``tests/data/fused_torch_2_13.json``).

Shapes: one row of ``d`` entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps
from layernorm.core import DEFAULT_EPS
from layernorm.labs.float32_affine import mul_add32, rstd_of, to_float32

LANES = 8  # float32 lanes of PyTorch's Vectorized<float> in its AVX2 and default builds
CHUNK = 16  # vectors per Welford chunk (moments_utils.h kChunkSize)


def _ceil_log2(n: int) -> int:
    """PyTorch's ``utils::CeilLog2``: 1 for n <= 2, else the bits of n - 1."""
    return 1 if n <= 2 else int(n - 1).bit_length()


def _merge(
    count_add: int, m1_add: F64, m2_add: F64, count: int, m1: F64, m2: F64, fma: bool
) -> tuple[int, F64, F64]:
    """``AddMomentsVec``: lanes of (count_add, m1_add, m2_add) merged into (count, m1, m2)."""
    n = count + count_add
    c = 0.0 if n == 0 else float(to_float32(np.float64(count_add) / np.float64(n)))
    delta = to_float32(m1_add - m1)
    m2_sum = to_float32(m2 + m2_add)
    c_delta = to_float32(c * delta)
    count_delta = to_float32(delta * float(count))
    return n, to_float32(m1 + c_delta), mul_add32(count_delta, c_delta, m2_sum, fma=fma)


def rowwise_moments(x: ArrayLike, *, fma: bool = True) -> tuple[float, float]:
    """The mean and the population variance of one float32 row, as PyTorch 2.13's CPU kernel computes them.

    Parameters
    ----------
    x : (d,) array_like
        Finite numbers; rounded to float32 first.
    fma : bool, default True
        PyTorch's AVX2 build (fused multiply-adds) or, False, its default build.

    Returns
    -------
    tuple of float
        ``(mu, var)``, both float32 numbers. ``var`` is ∞ where a sum of squares overflows float32
        and NaN where the merge of the lanes squares a difference of means beyond float32 (a mean
        of magnitude above about 1.8e19): what the kernel returns, shown, not refused.

    Raises
    ------
    ValueError
        ``x`` is not a non-empty row of finite numbers within float32's range.

    Notes
    -----
    ``d // 8`` vectors of 8 lanes are taken in chunks of 16: within a chunk each lane runs Welford's
    update ``m1 = fma(1/(j+1), x - m1, m1)``, ``m2 = fma(x - m1_old, x - m1, m2)``; each chunk is
    merged (``AddMomentsVec``) into a stack that is merged pairwise as chunks complete. The last
    ``d mod 8`` entries go through a scalar Welford loop (``m1 += delta / n``;
    ``m2 += delta * (x - m1)``, which the compiler does not fuse), then each of the 8 lanes is merged
    into it by ``AddMoments`` (its ``m1 += c * delta`` and ``m2_add + delta·delta·c·n`` fused).
    ``var = m2 / d``. For ``d < 8`` this is float32 Welford one entry at a time.
    Source: PyTorch 2.13 ``aten/src/ATen/native/cpu/moments_utils.h`` (``RowwiseMomentsImpl``),
    checked against its outputs in ``tests/data/fused_torch_2_13.json``.
    """
    row = as_float64(x)
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"x must be one non-empty row (d,), got shape {row.shape}")
    stored = to_float32(row)
    if not (np.all(np.isfinite(row)) and np.all(np.isfinite(stored))):
        raise ValueError("x must be finite numbers within float32's range")
    d = row.size
    n_vec = d // LANES
    chunks = -(-n_vec // CHUNK)
    depth = _ceil_log2(chunks)
    zeros = np.zeros(LANES)
    counts = [0] * depth
    m1s, m2s = [zeros] * depth, [zeros] * depth
    inverse = [float(to_float32(1.0 / (j + 1))) for j in range(CHUNK)]
    with np.errstate(over="ignore", invalid="ignore"):
        # Each chunk's Welford pass starts from zero moments: all chunks run at once, row by row.
        blocks = np.zeros((chunks, CHUNK, LANES))
        blocks.reshape(-1, LANES)[:n_vec] = stored[: n_vec * LANES].reshape(n_vec, LANES)
        sizes = np.minimum(CHUNK, n_vec - CHUNK * np.arange(chunks))
        m1_chunk, m2_chunk = np.zeros((chunks, LANES)), np.zeros((chunks, LANES))
        for j in range(CHUNK):
            on = (j < sizes)[:, None]
            xv = blocks[:, j, :]
            delta = to_float32(xv - m1_chunk)
            m1_next = mul_add32(inverse[j], delta, m1_chunk, fma=fma)
            m2_next = mul_add32(delta, to_float32(xv - m1_next), m2_chunk, fma=fma)
            m1_chunk, m2_chunk = np.where(on, m1_next, m1_chunk), np.where(on, m2_next, m2_chunk)
        for i in range(chunks):
            counts[0], m1s[0], m2s[0] = _merge(
                int(sizes[i]), m1_chunk[i], m2_chunk[i], counts[0], m1s[0], m2s[0], fma
            )
            mask, level = i + 1, 1
            while level < depth and mask & 1 == 0:
                below = level - 1
                counts[level], m1s[level], m2s[level] = _merge(
                    counts[below], m1s[below], m2s[below], counts[level], m1s[level], m2s[level], fma
                )
                counts[below], m1s[below], m2s[below] = 0, zeros, zeros
                mask >>= 1
                level += 1
        for level in range(1, depth):
            counts[0], m1s[0], m2s[0] = _merge(
                counts[level], m1s[level], m2s[level], counts[0], m1s[0], m2s[0], fma
            )
        count, mu, m2_row = 0, 0.0, 0.0
        for value in stored[n_vec * LANES :]:
            step = float(to_float32(value - mu))
            count += 1
            mu = float(to_float32(mu + float(to_float32(step / count))))
            m2_row = float(to_float32(m2_row + float(to_float32(step * float(to_float32(value - mu))))))
        for lane in range(LANES):  # AddMoments: each lane (n_vec entries) into the scalar moments
            n = count + n_vec
            c = 0.0 if n == 0 else float(to_float32(np.float64(n_vec) / np.float64(n)))
            gap = float(to_float32(m1s[0][lane] - mu))
            mu = float(mul_add32(c, gap, mu, fma=fma))
            weighted = float(to_float32(to_float32(gap * gap) * c))
            m2_row = float(to_float32(m2_row + mul_add32(weighted, float(count), m2s[0][lane], fma=fma)))
            count = n
        return mu, float(to_float32(m2_row / d))


@dataclass(frozen=True)
class KernelRun:
    """What PyTorch 2.13's CPU ``layer_norm`` returns for one float32 row, and what it used.

    Attributes
    ----------
    x, gamma, beta : (d,) ndarray
        The inputs as float32 stores them.
    mu, var : float
        :func:`rowwise_moments`.
    rstd : float
        ``1 / sqrt(var + eps)`` in float32 (∞ where ``var + eps`` is 0 in float32).
    y : (d,) ndarray
        The output in float32; NaN or ∞ wherever the kernel gives them.

    Notes
    -----
    Source: this project.
    """

    x: F64
    gamma: F64
    beta: F64
    mu: float
    var: float
    rstd: float
    y: F64


def layer_norm_kernel(
    x: ArrayLike,
    gamma: ArrayLike = 1.0,
    beta: ArrayLike = 0.0,
    *,
    eps: float = DEFAULT_EPS,
    fma: bool = True,
) -> KernelRun:
    """PyTorch 2.13's CPU ``F.layer_norm(x, (d,), weight=gamma, bias=beta, eps=eps)`` in float32.

    Parameters
    ----------
    x : (d,) array_like
        One row, within float32's range.
    gamma, beta : float or (d,) array_like, default 1 and 0
        The weight and bias (both given, as ``nn.LayerNorm`` gives them); within float32's range.
    eps : float, default 1e-5
        Stored in float32, as the kernel stores it.
    fma : bool, default True
        As in :func:`rowwise_moments`.

    Returns
    -------
    KernelRun
        Its ``y`` may hold NaN or ∞ (a constant row at ``eps = 0``, an overflowing variance): the
        kernel's output, not refused.

    Raises
    ------
    ValueError
        ``x``, ``gamma`` or ``beta`` not finite numbers within float32's range, or of the wrong shape;
        ``eps`` negative or not finite.

    Notes
    -----
    ``y = fma(((x + (-mu)) * rstd), gamma, beta)``: the deviation and its product with ``rstd`` are
    each rounded to float32, and ``* gamma + beta`` is one fused multiply-add (two roundings when not
    ``fma``). Source: PyTorch 2.13 ``aten/src/ATen/native/cpu/layer_norm_kernel.cpp``
    (``LayerNormSecondPass``), checked against its outputs in ``tests/data/fused_torch_2_13.json``.
    """
    eps = check_eps(eps)
    row = to_float32(as_float64(x))
    mu, var = rowwise_moments(row, fma=fma)
    params = []
    for p, name in ((gamma, "gamma"), (beta, "beta")):
        p64 = as_float64(p, name)
        if p64.ndim > 1 or p64.size not in (1, row.size):
            raise ValueError(f"{name} must be one number or {row.size} numbers, got shape {p64.shape}")
        stored = to_float32(np.broadcast_to(p64.ravel(), row.shape))
        if not (np.all(np.isfinite(p64)) and np.all(np.isfinite(stored))):
            raise ValueError(f"{name} must be finite numbers within float32's range")
        params.append(stored)
    g32, b32 = params
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rstd = rstd_of(var, eps, "float32")
        x_hat = to_float32(to_float32(row - mu) * rstd)
        y = mul_add32(x_hat, g32, b32, fma=fma)
    return KernelRun(row, g32, b32, mu, var, rstd, y)
