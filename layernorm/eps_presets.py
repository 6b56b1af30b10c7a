"""ε as frameworks and real checkpoints set it: each preset with its value, its norm and where the
value comes from (the Estimators and ε page offers them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EpsPreset:
    """The ε a framework or a released model uses, and where that is written.

    Attributes
    ----------
    name : str
        Framework or model.
    eps : float
        Units of ``x`` squared when inside the root, of ``x`` when outside.
    norm : str
        "LayerNorm" or "RMSNorm".
    eps_inside : bool
        True for ``sqrt(var + eps)``.
    source : str
        Where the value comes from.

    Notes
    -----
    Source: ``tests/data/FRAMEWORKS.md`` of this project (and the sources named per entry).
    """

    name: str
    eps: float
    norm: str
    eps_inside: bool
    source: str


EPS_PRESETS: tuple[EpsPreset, ...] = (
    EpsPreset("PyTorch nn.LayerNorm", 1e-5, "LayerNorm", True, "PyTorch docs: nn.LayerNorm(eps=1e-05)"),
    EpsPreset("Keras 3 LayerNormalization", 1e-3, "LayerNorm", True, "Keras 3 docs: epsilon=1e-3"),
    EpsPreset("Flax LayerNorm / RMSNorm", 1e-6, "LayerNorm", True, "Flax docs: epsilon=1e-6"),
    EpsPreset(
        "BERT family (BERT-base, all-MiniLM-L6-v2)",
        1e-12,
        "LayerNorm",
        True,
        "Hugging Face BertConfig layer_norm_eps=1e-12; the shipped MiniLM recording stores 1e-12",
    ),
    EpsPreset(
        "GPT-2 (Hugging Face)", 1e-5, "LayerNorm", True, "Hugging Face GPT2Config layer_norm_epsilon=1e-5"
    ),
    EpsPreset(
        "T5 / LLaMA RMSNorm (Hugging Face)",
        1e-6,
        "RMSNorm",
        True,
        "Hugging Face T5LayerNorm / LlamaRMSNorm, eps=1e-6",
    ),
    EpsPreset(
        "PyTorch nn.RMSNorm (float32)",
        float(np.finfo(np.float32).eps),
        "RMSNorm",
        True,
        "PyTorch 2.13 docs: eps=None is float32's machine ε for fp16, bf16 and fp32 input",
    ),
    EpsPreset(
        "RMSNorm authors' code",
        1e-8,
        "RMSNorm",
        False,
        "Zhang & Sennrich (2019) reference code: x / (rms + eps)",
    ),
)
