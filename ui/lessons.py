"""Lesson links: ready-made links to teaching moments, shown on Home.

Each one opens a page with the settings that show one idea; the parameters are the widgets' own
URL texts (the sidebar's ``ui.settings.LINK_KEYS`` and the pages' ``ui.keys.PAGE_KEYS``), so a
lesson link is read like any shared link, and ``tests/test_lessons.py`` checks that every one
opens without a single "the link's … is not …" message.
"""

from __future__ import annotations

from dataclasses import dataclass

from layernorm.labs.quiz import BUILDERS as QUIZ_BUILDERS


@dataclass(frozen=True)
class Lesson:
    """One teaching moment: the page, its settings, what to point at."""

    title: str
    page: str  # "pages/3_standardize.py"
    params: dict[str, str]
    point: str  # one sentence: what the class should see


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "A nearly constant vector: ε takes over",
        "pages/3_standardize.py",
        {"src": "Type numbers", "typed": "3, 3.0001, 2.9999, 3.0002", "eps": "1e-05"},
        "σ² is about 1e-8, far below ε = 1e-5: x̂ shrinks towards 0 instead of reaching unit variance.",
    ),
    Lesson(
        "d = 512 under LayerNorm and BatchNorm",
        "pages/6_which_axis.py",
        {"axes_B": "4", "axes_T": "16", "axes_d": "512", "axes_lens": "BatchNorm"},
        "LayerNorm pools one token's 512 features; BatchNorm pools one feature over all 64 tokens.",
    ),
    Lesson(
        "The real [CLS] token and its outlier feature",
        "pages/3_standardize.py",
        {
            "src": "Real token (MiniLM)",
            "tok_sentence": "Where is the nearest train station?",
            "tok_index": "0: [CLS]",
            "tok_site": "Layer 0 · after FFN",
            "affine_mode": "MiniLM's learned γ, β",
        },
        "Feature 99 is about 220 while most features are near 0.1: that one feature makes up over 99% "
        "of σ², so it sets σ for the whole token.",
    ),
    Lesson(
        "100 layers without normalization",
        "pages/8_depth_and_drift.py",
        {
            "depth_layers": "100",
            "depth_gain": "1.2",
            "depth_act": "linear (none)",
            "depth_norm": "no normalization",
        },
        "Linear layers with a gain of 1.2: the scale compounds to 1.2¹⁰⁰ ≈ 10⁸ and the activations "
        "explode; switch on LayerNorm and they stay put.",
    ),
    Lesson(
        "A learning rate only LayerNorm survives",
        "pages/9_learning_rate.py",
        {"lr_pick": "0.1"},
        "At learning rate 0.1 every unnormalized run diverges while the LayerNorm network trains.",
    ),
    Lesson(
        "Batch size 1: BatchNorm has nothing to pool",
        "pages/7_train_vs_inference.py",
        {"tvi_n": "1"},
        "One example per batch: BatchNorm has nothing to compare it with in training (PyTorch refuses it); "
        "LayerNorm normalizes each example on its own.",
    ),
    Lesson(
        "Keras 3 stores ÷n, PyTorch ÷(n − 1)",
        "pages/7_train_vs_inference.py",
        {"tvi_framework": "Keras 3", "tvi_fw_momentum": "0"},
        "One batch x = 1, 2, 3, 4 given full weight (Keras momentum 0, PyTorch momentum 1): Keras 3 and "
        "Flax store running variance 1.25, PyTorch and TensorFlow's fused kernel 1.6667.",
    ),
    Lesson(
        "÷d or ÷(d − 1), ε inside or outside",
        "pages/12_estimators_and_eps.py",
        {
            "est_vector": "one-hot [1, 0, 0, 0]",
            "est_divisor": "d − 1 (sample)",
            "est_place": "outside: σ + ε",
        },
        "The tutorial's recipe gives a different answer from PyTorch on the same vector.",
    ),
    Lesson(
        "bfloat16's own ε halves RMSNorm's output",
        "pages/12_estimators_and_eps.py",
        {"est_rms_example": "0.05, −0.05, 0.05, −0.05 (the dtype's ε)", "est_rms_dtype": "bfloat16"},
        "PyTorch's nn.RMSNorm gives ±0.99998 here (ε = 2⁻²³); the same formula with bfloat16's own "
        "ε = 2⁻⁷ gives ±0.49, and Keras' rms_scaling and a formula with a square root too many differ too.",
    ),
    Lesson(
        "γ = σ, β = μ gives one token back",
        "pages/4_scale_shift.py",
        {"affine_mode": "Undo for this vector: γ = σ, β = μ", "eps": "1e-12"},
        "With γ set to this vector's σ and β to its μ, the output is this vector again (up to ε's "
        "effect, tiny while ε ≪ σ²). But γ and β are shared by every token, and each token has its "
        "own μ and σ: no one choice gives them all back, so each token's own mean and spread are gone "
        "after LayerNorm.",
    ),
    Lesson(
        "One γ, β for a whole sentence",
        "pages/4_scale_shift.py",
        {
            "ss_many_sentence": "The cat sat on the mat.",
            "ss_many_site": "Layer 0 · after FFN",
            "ss_many_token": "3 · sat",
        },
        "The shared γ, β that give back the token “sat” give every other token of the sentence sat's "
        "mean and spread instead of its own (further down the page).",
    ),
    Lesson(
        "Learning rate 0.3: a layer dies without normalization",
        "pages/17_training_steps.py",
        {"steps_lr": "0.3", "steps_depth": "4", "steps_seed": "0", "steps_at": "100"},
        "By step 100 every unit of the unnormalized network's last layer outputs 0 (its spread is 0) and "
        "its loss is stuck at 0.5, the zero predictor's; with LayerNorm or BatchNorm it keeps learning.",
    ),
    Lesson(
        "A gradient check: a smaller step is not a better one",
        "pages/15_gradients.py",
        {"grad_check_h": "1e-13"},
        "At h = 1e−13 the finite difference is off in the fourth digit: float64's rounding of the loss, "
        "divided by a tiny h. Step h up towards 1e−5 and it agrees to about ten digits.",
    ),
    Lesson(
        "float16 and the one-pass variance",
        "pages/13_precision.py",
        {"src": "Type numbers", "typed": "1, 2, 3, 4", "prec_dtype": "float16", "prec_offset": "1e2"},
        "[1, 2, 3, 4] moved up by 100, in float16: mean(x²) − μ² gives σ² = 8 instead of 1.25, "
        "while the two-pass formula gets 1.25.",
    ),
    Lesson(
        "A fused kernel: BatchNorm on a constant channel",
        "pages/13_precision.py",
        {"fused_case": "BatchNorm: a channel of equal values", "fused_v": "5e7"},
        "Five copies of 5e7 normalize to exactly β = 0, yet y = x·s + b in float32 gives 242.27734375, as "
        "PyTorch 2.13's CPU BatchNorm does in training mode (the batch's own μ and σ²) on a processor with "
        "fused multiply-add (AVX2 or AVX-512; its build without them returns 0): b = −μ·s is about "
        "−1.58e10 and is stored to the nearest 1024. Switch the mode to eval to see the running statistics' "
        "answer.",
    ),
    Lesson(
        f"The quiz: {len(QUIZ_BUILDERS)} confusions, a question each",
        "pages/16_quiz.py",
        {},
        f"{len(QUIZ_BUILDERS)} questions, one for each confusion the quiz covers, with fresh numbers for "
        "every student; after Check, each links to the page in the state that shows its answer.",
    ),
)
