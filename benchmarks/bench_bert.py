"""Speed of the live transformer (``layernorm.labs.bert.forward``) and its accuracy per site.

Run from the repository root::

    .venv/bin/python benchmarks/bench_bert.py            # timing table + accuracy table
    .venv/bin/python benchmarks/bench_bert.py --repeats 15

One thread: ``OPENBLAS_NUM_THREADS`` (and friends) are set to 1 before NumPy is imported, as the
page does with threadpoolctl, so the figure is "one core". Times are the median CPU time
(``time.process_time``) of several calls in this process. Prints tables; asserts nothing.
Target (issue "Your own sentence"): a forward pass of ≤ 64 word-pieces with all 13 sites recorded
in ≤ 100 ms; the ratio to the same pass without recording says what recording costs.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import layernorm as ln  # noqa: E402
from layernorm.data.weights import load_minilm_weights, load_tokenizer, tokenize  # noqa: E402
from layernorm.labs import bert, readouts  # noqa: E402

TARGET_S = 0.100


def cpu_median(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} (2-core machine); one BLAS thread")
    t0 = time.perf_counter()
    weights, tokenizer = load_minilm_weights(), load_tokenizer()
    print(f"loading weights + tokenizer: {time.perf_counter() - t0:.2f} s (once per server)\n")

    words = "layer normalization keeps every token of a transformer in a sensible range " * 8
    print(
        "| batch | word-pieces | forward, recording 13 sites | without recording | ratio | target ≤ 100 ms |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for label, sentences in (
        ("one sentence", [" ".join(words.split()[:30])]),
        ("one sentence", [" ".join(words.split()[:50])]),
        ("two sentences", [" ".join(words.split()[:30]), " ".join(words.split()[:30])]),
        ("one sentence (limit)", [words]),
    ):
        batch = tokenize(tokenizer, sentences)
        n = int(batch.attention_mask.sum())

        def rec(b=batch):  # type: ignore[no-untyped-def]
            return bert.forward(weights, b.input_ids, b.attention_mask)

        def bare(b=batch):  # type: ignore[no-untyped-def]
            return bert.forward(weights, b.input_ids, b.attention_mask, record=False)

        t_rec, t_bare = cpu_median(rec, args.repeats), cpu_median(bare, args.repeats)
        verdict = ("met" if t_rec <= TARGET_S else "NOT met") if n <= 64 else "(> 64 pieces)"
        times = f"{t_rec * 1e3:.1f} ms | {t_bare * 1e3:.1f} ms | {t_rec / t_bare:.2f}×"
        print(f"| {label} | {n} | {times} | {verdict} |")

    rec7 = ln.load_minilm_recording()
    batch = tokenize(tokenizer, [str(s) for s in rec7.sentences])
    result = bert.forward(weights, batch.input_ids, batch.attention_mask)
    real = rec7.attention_mask.astype(bool)
    print(
        "\nAccuracy against the recorded PyTorch activations (7 sentences, float32), max |ours − PyTorch|:\n"
    )
    print("| site | input, real tokens | output, real tokens | input, all | output, all | max abs input |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in range(rec7.n_sites):
        di = np.abs(result.site_inputs[s].astype(np.float64) - rec7.inputs[s])
        do = np.abs(result.site_outputs[s].astype(np.float64) - rec7.outputs[s])
        print(
            f"| {readouts.site_label(s)} | {di[real].max():.1e} | {do[real].max():.1e} | {di.max():.1e} | "
            f"{do.max():.1e} | {np.abs(rec7.inputs[s]).max():.1f} |"
        )
    expected = bert.sentence_embedding(rec7.outputs[-1], rec7.attention_mask)
    worst = min(readouts.cosine(a, b) for a, b in zip(result.embedding, expected, strict=True))
    print(f"\nsentence embeddings: max |difference| {np.abs(result.embedding - expected).max():.1e}, "
          f"lowest cosine {worst:.9f}")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
