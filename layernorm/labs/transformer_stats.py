"""What the 13 LayerNorms of a real transformer (all-MiniLM-L6-v2) receive and return.

Every statistic is over the *real* tokens of the recorded batch (padding left out)
and is computed with this package's own :func:`layernorm.layer_norm_steps`, fed the
model's learned ``gamma``, ``beta`` and ``eps``; ``max_formula_error`` says how far
that recomputation is from what PyTorch returned. Letters: ``S`` sites, ``n`` real
tokens, ``d`` features (384).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64, finite_results
from layernorm.data.activations import MiniLMRecording
from layernorm.steps import layer_norm_steps


@dataclass(frozen=True)
class SiteStats:
    """Per-site summaries, each an ``(S,)`` array unless said otherwise.

    Attributes
    ----------
    labels : list of str, length S
        Short site names ("Embeddings LN", "Layer 0 · after attention", ...).
    in_std_median : (S,) ndarray of float64
        Median over tokens of each token's std (the LayerNorm divisor, without eps),
        in model units.
    in_abs_median : (S,) ndarray of float64
        Median of |x| over all real (token, feature) entries: the typical size.
    in_absmax : (S,) ndarray of float64
        Largest |x| at the site.
    outlier_dim : (S,) ndarray of int
        The feature holding ``in_absmax``, ``0 <= i < d``.
    outlier_token : list of str, length S
        The WordPiece token holding ``in_absmax``.
    x_hat_absmax : (S,) ndarray of float64
        Largest |x_hat| after normalizing (dimensionless, at most sqrt(d - 1)).
    outlier_x_hat : (S,) ndarray of float64
        The signed x_hat of the entry holding ``in_absmax``; its size can be below
        ``x_hat_absmax``, which another token may hold (a row's x_hat depends on its spread).
    out_std_median, out_absmax : (S,) ndarray of float64
        The same as ``in_std_median``/``in_absmax`` for the LayerNorm output ``y``.
    max_formula_error : (S,) ndarray of float64
        Largest |y_ours - y_pytorch| over the site.
    gamma_median, gamma_min, gamma_max, beta_median, beta_absmax : (S,) ndarray of float64
        Summaries over the ``d`` features of each site's learned ``gamma`` and ``beta``.

    Notes
    -----
    Source: ``sentence-transformers/all-MiniLM-L6-v2`` recorded by
    ``scripts/extract_minilm_activations.py``; LayerNorm per Ba, Kiros & Hinton (2016).
    """

    labels: list[str]
    in_std_median: F64
    in_abs_median: F64
    in_absmax: F64
    outlier_dim: np.ndarray
    outlier_token: list[str]
    x_hat_absmax: F64
    outlier_x_hat: F64
    out_std_median: F64
    out_absmax: F64
    max_formula_error: F64
    gamma_median: F64
    gamma_min: F64
    gamma_max: F64
    beta_median: F64
    beta_absmax: F64

    @property
    def typical_abs(self) -> float:
        """Median over sites of the per-site median |x|: the size of an ordinary entry."""
        return float(np.median(self.in_abs_median))

    @property
    def worst_formula_error(self) -> float:
        """Largest |y_ours - y_pytorch| over every site."""
        return float(np.max(self.max_formula_error))


def _real(rec: MiniLMRecording) -> tuple[np.ndarray, np.ndarray]:
    """(sentence, position) index arrays of the real tokens, in batch order."""
    b, t = np.nonzero(rec.attention_mask == 1)
    return b, t


def site_stats(rec: MiniLMRecording) -> SiteStats:
    """Summarise every LayerNorm site of the recording over its real tokens.

    Parameters
    ----------
    rec : MiniLMRecording
        From :func:`layernorm.data.activations.load_minilm_recording`.

    Returns
    -------
    SiteStats
        One entry per site, arrays of shape ``(S,)``.

    Raises
    ------
    ValueError
        The recording has no real token (``attention_mask`` all 0), or, for a
        recording built by hand rather than loaded, arrays the core
        :func:`layernorm.layer_norm_steps` rejects (NaN/inf, ``gamma``/``beta`` not
        ``(S, d)``, negative ``eps``).
    ZeroVarianceError
        A hand-built recording with ``eps == 0`` and a constant token.

    Notes
    -----
    ``x_hat`` of a row whose whole spread comes from one feature approaches
    ``sqrt(d - 1)`` (19.57 for d = 384) in that feature: the outlier takes all
    the variance and every other feature is squeezed toward 0. Source of the
    outlier-feature observation: Kovaleva et al. (2021), "BERT Busters";
    Sun et al. (2024), "Massive Activations in Large Language Models".
    """
    b, t = _real(rec)
    fields: dict[str, list[float]] = {
        k: []
        for k in (
            "in_std_median",
            "in_abs_median",
            "in_absmax",
            "x_hat_absmax",
            "outlier_x_hat",
            "out_std_median",
            "out_absmax",
            "max_formula_error",
        )
    }
    dims: list[int] = []
    tokens: list[str] = []
    for s in range(rec.n_sites):
        x = rec.inputs[s, b, t]  # (n, d)
        st = layer_norm_steps(x, rec.gamma[s], rec.beta[s], eps=float(rec.eps[s]))
        flat = int(np.argmax(np.abs(st.x)))
        row, dim = divmod(flat, rec.d)
        dims.append(dim)
        tokens.append(str(rec.tokens[b[row], t[row]]))
        fields["in_std_median"].append(float(np.median(st.sigma)))
        fields["in_abs_median"].append(float(np.median(np.abs(st.x))))
        fields["in_absmax"].append(float(np.abs(st.x).max()))
        fields["x_hat_absmax"].append(float(np.abs(st.x_hat).max()))
        fields["outlier_x_hat"].append(float(st.x_hat[row, dim]))
        fields["out_std_median"].append(float(np.median(np.std(st.y, axis=1))))
        fields["out_absmax"].append(float(np.abs(st.y).max()))
        fields["max_formula_error"].append(float(np.abs(st.y - rec.outputs[s, b, t]).max()))
    g = rec.gamma.astype(np.float64)
    be = rec.beta.astype(np.float64)
    return SiteStats(
        labels=[rec.site_label(s) for s in range(rec.n_sites)],
        outlier_dim=np.array(dims),
        outlier_token=tokens,
        gamma_median=np.median(g, axis=1),
        gamma_min=g.min(axis=1),
        gamma_max=g.max(axis=1),
        beta_median=np.median(be, axis=1),
        beta_absmax=np.abs(be).max(axis=1),
        **{k: np.array(v) for k, v in fields.items()},
    )


def dimension_profile(rec: MiniLMRecording, site: int) -> tuple[F64, F64]:
    """Largest |value| of each feature over the real tokens, before and after one LayerNorm.

    Parameters
    ----------
    rec : MiniLMRecording
        From :func:`layernorm.data.activations.load_minilm_recording`; ``inputs`` ``(S, B, T, d)``.
    site : int
        ``0 <= site < S``.

    Returns
    -------
    in_absmax : (d,) ndarray
        ``max over tokens |x_i|`` for each feature ``i``: outlier features stand out.
    out_absmax : (d,) ndarray
        The same for the LayerNorm output ``y`` (recomputed with this package).

    Raises
    ------
    IndexError, TypeError
        ``site`` out of range or not an integer.
    ValueError
        The recording has no real token, or arrays the core
        :func:`layernorm.layer_norm_steps` rejects (only possible for a hand-built recording).

    Notes
    -----
    Source: ``sentence-transformers/all-MiniLM-L6-v2`` recorded by
    ``scripts/extract_minilm_activations.py``; outlier features as in Kovaleva et al.
    (2021), "BERT Busters".
    """
    s = rec._check_index(site, rec.n_sites, "site")
    b, t = _real(rec)
    st = layer_norm_steps(rec.inputs[s, b, t], rec.gamma[s], rec.beta[s], eps=float(rec.eps[s]))
    return np.abs(st.x).max(axis=0), np.abs(st.y).max(axis=0)


@finite_results()
def parameter_histograms(values: F64, bins: int = 60) -> tuple[F64, F64]:
    """Histogram of every row of ``values`` (e.g. ``gamma`` of each site) on shared bin edges.

    Parameters
    ----------
    values : (S, d) array_like
        One row per site, e.g. ``gamma`` or ``beta``; finite and non-empty.
    bins : int, default 60
        Number of equal-width bins spanning all values.

    Returns
    -------
    counts : (S, bins) ndarray
        Number of features of each row in each bin.
    edges : (bins + 1,) ndarray
        Shared bin edges, in the units of ``values``.

    Raises
    ------
    ValueError
        ``values`` not 2-D, empty, not numeric or not finite; ``bins < 1``.

    Notes
    -----
    Source: this project (teaching simulation); binning by :func:`numpy.histogram`.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"values must be a finite, non-empty (S, d) array, got shape {v.shape}")
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        pad = max(0.5, abs(lo) * 2.0**-40)  # (lo - 0.5 == lo beyond 2**53)
        lo, hi = max(lo - pad, -sys.float_info.max), min(hi + pad, sys.float_info.max)
    # halved, then doubled (exact): hi - lo may pass float64's largest value
    edges = (
        np.linspace(lo / 2, hi / 2, bins + 1) * 2 if hi - lo == math.inf else np.linspace(lo, hi, bins + 1)
    )
    return np.stack([np.histogram(row, bins=edges)[0] for row in v]).astype(np.float64), edges
