"""Record PyTorch 2.13's CPU outputs for the Precision page's float32 kernel models.

An offline, one-off recording script: the app never imports it, and the tests import only its case
lists and :func:`pattern` (this module imports torch only inside :func:`record`). It writes
``tests/data/fused_torch_2_13.json``, which ``tests/labs/test_fused.py`` and
``tests/labs/test_torch_kernels.py`` compare bit for bit with ``layernorm.labs.fused`` and
``layernorm.labs.torch_kernels``.

Usage (from the repository root, in a scratch environment; PyTorch is never a dependency)::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0 numpy   # the CPU wheel
    /tmp/torchenv/bin/python scripts/record_fused_torch.py

It records three times, each in a fresh process: with this CPU's own build of the kernels (``AVX512``
here; LayerNorm has no AVX-512 build, so it runs its AVX2 code, with fused multiply-adds), then a
part of the cases with ``ATEN_CPU_CAPABILITY=avx2`` and with ``ATEN_CPU_CAPABILITY=default`` (no fused
multiply-adds). One thread.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "fused_torch_2_13.json"

# The Precision page's examples (layernorm.labs.fused: CHANNEL_VALUES, D1_GAMMAS, ROW_NEAR_2E8;
# tests/labs/test_fused.py checks these are the same).
CHANNEL_VALUES = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 5e7, 1e8, 1e9)
D1_GAMMAS = (1.0, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12)
ROW_NEAR_2E8 = (200000016.0, 200000000.0, 200000032.0, 200000048.0)
QUIZ_CHANNELS = ((5e7, 5), (1e6, 4), (1e7, 3))  # the quiz's constant channels (value, copies)

# Rows near 1e8, where float32's numbers are 8 apart: four values around 100000008, and others.
NEAR_1E8 = (
    (100000000.0, 100000008.0, 100000016.0, 100000024.0),
    (100000008.0, 100000000.0, 100000016.0, 100000008.0),
    (99999992.0, 100000000.0, 100000008.0, 100000016.0),
    (100000016.0, 100000000.0, 100000024.0, 100000008.0),
    (100000000.0, 100000016.0, 100000000.0, 100000016.0),
)


def pattern(d: int, a: int, b: int, lo: float, step: float, mod: int = 64) -> np.ndarray:
    """``lo + step * ((i * a + b) mod mod)`` for i < d, in float64.

    The tests rebuild a recorded row from these numbers instead of storing thousands of them.
    """
    return lo + step * ((np.arange(d, dtype=np.int64) * a + b) % mod).astype(np.float64)


def _case(key: str, args: list[Any], explicit: bool) -> dict[str, Any]:
    """A row as its numbers (``explicit``) or as :func:`pattern`'s arguments."""
    return {key: pattern(*args).tolist()} if explicit else {f"{key}_pattern": args}


def _near_rows() -> list[dict[str, Any]]:
    """LayerNorm rows far from 0 compared with their spread: offsets 1e6 to 1e9, d = 4 to 64."""
    cases: list[dict[str, Any]] = []
    for x in NEAR_1E8:
        for gamma, beta in ((1.0, 0.0), (1.5, -0.25), (0.75, 2.0)):
            cases.append({"x": list(x), "gamma": gamma, "beta": beta, "eps": 1e-5})
    for offset in (1e6, 1e7, 1e8, 2e8, 1e9):
        at = float(np.float32(offset))
        unit = float(np.spacing(np.float32(offset)))
        for d in (4, 5, 7, 8, 9, 16, 17, 33, 64):
            for k, spread in enumerate((1, 2, 5)):
                small = d <= 9
                case = _case("x", [d, 7 + 2 * k, d, at - spread * unit, unit, 2 * spread + 1], small)
                case |= _case("gamma", [d, 5, k, 0.5, 1 / 32], small) if k else {"gamma": 1.25}
                case |= _case("beta", [d, 3, d + k, -1.0, 1 / 16], small) if k != 1 else {"beta": -0.5}
                cases.append(case | {"eps": 1e-5})
    return cases


def _spread_rows() -> list[dict[str, Any]]:
    """Rows like the sidebar's: d from 2 to 4096 (the merge of 8 lanes in chunks of 16), ε from 1e-12 to 1.

    Rows of more than 64 entries are stored as :func:`pattern` arguments (``x_pattern`` and the
    like) and their output as a SHA-256 of its float32 bytes.
    """
    cases: list[dict[str, Any]] = []
    for d in (2, 3, 6, 8, 10, 12, 24, 48, 64, 96, 128, 136, 384, 520, 1024, 2056, 4096):
        for j, (offset, eps) in enumerate(((0.0, 1e-5), (1e4, 1e-12), (3e6, 1.0), (-2.5e7, 2e-3))):
            x = [d, 37 + 2 * j, j, offset - 32 * 0.375, 0.375]
            g = [d, 11 + 2 * j, 3 * j, -1.0, 1 / 16]
            b = [d, 13, j, -4.0, 1 / 8]
            cases.append({"x_pattern": x, "gamma_pattern": g, "beta_pattern": b, "eps": eps})
    return cases


EDGE_ROWS = (  # float32 overflows inside the kernel; the page shows no numbers for these
    ([1e30, -1e30, 5.0], 1e-5),  # the sum of squares overflows: var = ∞, rstd = 0, y = β
    ([2e19, 2.000001e19, 2e19], 1e-5),  # the merge of the lanes squares -μ: var = NaN
    ([3.0, 3.0], 0.0),  # a constant row at ε = 0: 0 · ∞
)


def _decode(v: float) -> float | str:
    """A float32 result as JSON holds it: its exact decimal, or "nan", "inf", "-inf"."""
    f = float(v)
    return f if np.isfinite(f) else str(f)


def _digest(y: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(y, dtype="<f4").tobytes()).hexdigest()


def row(case: dict[str, Any], key: str) -> np.ndarray | float:
    """A record's ``x``, ``gamma`` or ``beta`` as given (a number, or a float64 row), before float32."""
    if f"{key}_pattern" in case:
        return pattern(*case[f"{key}_pattern"])
    value = case[key]
    return np.asarray(value, dtype=np.float64) if isinstance(value, list) else float(value)


def record(capability: str, full: bool) -> list[dict[str, Any]]:
    """The cases, run in this process's PyTorch (``capability`` is only written into each record).

    Not ``full``: a part of them, the page's channels, the rows near 1e8 and the rows like the sidebar's.
    """
    import torch

    torch.set_num_threads(1)
    f32 = torch.float32
    records: list[dict[str, Any]] = []

    def out(y: Any) -> list[float | str]:
        return [_decode(v) for v in y.detach().reshape(-1).tolist()]

    def layer_norm(case: dict[str, Any]) -> dict[str, Any]:
        x = np.asarray(row(case, "x"), dtype=np.float32)
        d = x.size
        g = torch.from_numpy(np.broadcast_to(np.float32(row(case, "gamma")), (d,)).copy())
        b = torch.from_numpy(np.broadcast_to(np.float32(row(case, "beta")), (d,)).copy())
        xt = torch.from_numpy(x)[None]
        y = torch.nn.functional.layer_norm(xt, (d,), g, b, case["eps"])
        y2, mean, rstd = torch.native_layer_norm(xt, [d], g, b, case["eps"])
        assert torch.equal(y, y2) or bool(torch.isnan(y).any())
        rec = {"kernel": "layer_norm", "module": "F.layer_norm", **case}
        if "x" not in case:
            rec |= {"y_sha256": _digest(y.numpy()), "y_head": out(y[0, :4])}
        else:
            rec |= {"x": [float(v) for v in x], "y": out(y)}
        return rec | {"mean": _decode(mean.item()), "rstd": _decode(rstd.item())}

    def batch_norm(
        x: list[float], gamma: float, beta: float, eps: float, module: str, mode: str
    ) -> dict[str, Any]:
        n = len(x)
        shape = (n, 1) if module == "BatchNorm1d" else (1, 1, 1, n)  # one channel either way
        bn = getattr(torch.nn, module)(1, eps=eps)
        with torch.no_grad():
            bn.weight.fill_(gamma)
            bn.bias.fill_(beta)
            if mode == "eval":
                bn.running_mean.fill_(x[0])  # a channel that was constant in training: μ = its value
                bn.running_var.fill_(0.0)  # and σ² = 0
                bn.eval()
            xt = torch.tensor(x, dtype=f32).reshape(shape)
            y = bn(xt)
        rec = {"kernel": "batch_norm" if mode == "train" else "batch_norm_eval", "module": module}
        rec |= {"x": x, "gamma": gamma, "beta": beta, "eps": eps, "y": out(y)}
        if mode == "train":
            _, mean, invstd = torch.native_batch_norm(
                xt, bn.weight.detach(), bn.bias.detach(), None, None, True, 0.1, eps
            )
            rec |= {"mean": mean.item(), "rstd": invstd.item()}
        else:
            rec |= {"running_mean": float(np.float32(x[0])), "running_var": 0.0}
        return rec

    for mode in ("train", "eval"):
        for module in ("BatchNorm1d", "BatchNorm2d") if full else ("BatchNorm1d",):
            for v in CHANNEL_VALUES:
                records.append(batch_norm([v] * 5, 1.0, 0.0, 1e-5, module, mode))
        if full:
            for v, n in QUIZ_CHANNELS:
                records.append(batch_norm([v] * n, 1.0, 0.0, 1e-5, "BatchNorm1d", mode))
            for v in CHANNEL_VALUES:
                for g in D1_GAMMAS:
                    records.append(batch_norm([v, v], g, -1.0, 0.1, "BatchNorm1d", mode))
    if full:
        for v in CHANNEL_VALUES:
            for g in D1_GAMMAS:
                records.append(layer_norm({"x": [v], "gamma": g, "beta": -1.0, "eps": 0.1}))
    records.append(layer_norm({"x": list(ROW_NEAR_2E8), "gamma": 1.0, "beta": 0.0, "eps": 1e-5}))
    near = _near_rows()
    for case in (near if full else near[: 3 * len(NEAR_1E8)]) + _spread_rows():
        records.append(layer_norm(case))
    if full:
        for x, eps in EDGE_ROWS:
            records.append(layer_norm({"x": x, "gamma": 1.0, "beta": 0.0, "eps": eps}))
    return [r | {"capability": capability} for r in records]


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        import torch

        json.dump(record(torch.backends.cpu.get_cpu_capability(), sys.argv[2] == "full"), sys.stdout)
        return
    records: list[dict[str, Any]] = []
    for env, part in (
        ({}, "full"),
        ({"ATEN_CPU_CAPABILITY": "avx2"}, "part"),
        ({"ATEN_CPU_CAPABILITY": "default"}, "part"),
    ):
        child = subprocess.run(
            [sys.executable, __file__, "--child", part],
            env=os.environ | env,
            check=True,
            capture_output=True,
            text=True,
        )
        records += json.loads(child.stdout)
    import torch

    source = (
        f"PyTorch {torch.__version__} CPU, float32, one thread, recorded by scripts/record_fused_torch.py: "
        "torch.nn.BatchNorm1d and BatchNorm2d on one channel in training mode (kernel batch_norm; mean and "
        "rstd are native_batch_norm's saved statistics) and in eval mode (batch_norm_eval, running mean = "
        "the channel's first value, running variance 0), and torch.nn.functional.layer_norm with weight "
        "and bias (layer_norm; mean and rstd from native_layer_norm). capability: "
        "torch.backends.cpu.get_cpu_capability() (AVX2 and DEFAULT: ATEN_CPU_CAPABILITY=avx2, =default). "
        "A record with x_pattern (gamma_pattern, beta_pattern) holds the arguments of pattern() in that "
        "script instead of its numbers, and the SHA-256 of its output's little-endian float32 bytes; "
        "'nan' and 'inf' stand for those values."
    )
    lines = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in records)
    OUT.write_text(f'{{"source": {json.dumps(source)}, "records": [\n{lines}]}}\n')
    print(f"{len(records)} records -> {OUT}")


if __name__ == "__main__":
    main()
