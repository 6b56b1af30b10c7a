"""The app's navigation: each page's file, menu title, icon and the question Home's link asks.

`app.py` builds the sidebar's menu from `SECTIONS`; Home lists the lessons from it; the page tests
find every page here. Adding a page is a line in this table (README, "Add a page").
"""

from __future__ import annotations

from typing import NamedTuple


class Entry(NamedTuple):
    path: str  # the page's file, from the repository's top
    title: str  # in the menu and the tab's title
    icon: str
    question: str | None  # after the title on Home's link; None: Home does not link it


SECTIONS: dict[str, list[Entry]] = {
    "Start": [Entry("pages/0_home.py", "Home", ":material/home:", None)],
    "The formula, step by step": [
        Entry(
            "pages/1_mean.py", "1 · Mean", ":material/vertical_align_center:", "where is the vector centred?"
        ),
        Entry(
            "pages/2_variance.py", "2 · Variance", ":material/open_in_full:", "how spread out is it? Why ÷d?"
        ),
        Entry(
            "pages/3_standardize.py",
            "3 · Standardize",
            ":material/tune:",
            "subtract, divide, and what ε is for",
        ),
        Entry(
            "pages/4_scale_shift.py",
            "4 · Scale & shift",
            ":material/straighten:",
            "the learned γ and β, shared by every token",
        ),
        Entry(
            "pages/5_full_formula.py",
            "5 · The full formula",
            ":material/functions:",
            "every number in one place",
        ),
    ],
    "Layer versus batch": [
        Entry(
            "pages/6_which_axis.py",
            "Which axis?",
            ":material/grid_on:",
            "LayerNorm, BatchNorm and friends on one tensor",
        ),
        Entry(
            "pages/7_train_vs_inference.py",
            "Training vs inference",
            ":material/model_training:",
            "running statistics",
        ),
    ],
    "Why normalize": [
        Entry(
            "pages/8_depth_and_drift.py",
            "Depth and drift",
            ":material/stacked_line_chart:",
            "exploding and vanishing, live",
        ),
        Entry(
            "pages/9_learning_rate.py",
            "Learning rate",
            ":material/speed:",
            "where normalization helps, and where not",
        ),
        Entry(
            "pages/17_training_steps.py",
            "Training, step by step",
            ":material/step:",
            "watch each layer's statistics as it learns",
        ),
        Entry(
            "pages/10_inside_a_transformer.py",
            "Inside a real transformer",
            ":material/memory:",
            "MiniLM's 13 LayerNorms",
        ),
        Entry(
            "pages/11_your_sentence.py",
            "Your sentence, live",
            ":material/edit_note:",
            "remove LayerNorm from a real model",
        ),
        Entry(
            "pages/20_normalization_now.py",
            "Normalization now",
            ":material/new_releases:",
            "DyT, Peri-LN, QK-norm: what models since 2024 do",
        ),
    ],
    "Under the hood": [
        Entry(
            "pages/12_estimators_and_eps.py",
            "Estimators and ε",
            ":material/rule:",
            "÷d or ÷(d−1), ε inside or out, per framework",
        ),
        Entry(
            "pages/13_precision.py",
            "Precision",
            ":material/decimal_increase:",
            "float16, bfloat16 and the one-pass trap",
        ),
        Entry(
            "pages/14_invariances.py",
            "Invariances and geometry",
            ":material/3d_rotation:",
            "the plane and the sphere",
        ),
        Entry(
            "pages/15_gradients.py",
            "Gradients through LayerNorm",
            ":material/trending_down:",
            "the Jacobian, ∂γ, ∂β and a gradient check",
        ),
    ],
    "Test yourself": [
        Entry(
            "pages/16_quiz.py",
            "Misconception quiz",
            ":material/quiz:",
            "a question for each confusion it covers, with fresh numbers",
        )
    ],
}

# Pages the menu does not list, each opened by a link it is given: a class's projector view
# (``/projector?class=CODE``, from the teacher's panel). The page tests that loop over pages/ skip them.
HIDDEN: list[Entry] = [Entry("pages/19_projector.py", "Projector", ":material/co_present:", None)]

# Sections whose pages make their own data: the sidebar shows only what acts on them (not the vector).
OWN_DATA_SECTIONS = ("Layer versus batch", "Why normalize", "Test yourself")


def address(path: str) -> str:
    """A page file's address: ``"pages/2_variance.py"`` is ``"/variance"``, Home is ``"/"``."""
    name = path.rsplit("/", 1)[1].removesuffix(".py").split("_", 1)[1]
    return "/" if name == "home" else f"/{name}"


def page_file(address_: str) -> str:
    """The page file behind an address such as ``"/variance"`` (``"/"`` is Home).

    Raises ``KeyError`` for an address no page has, so a link to a missing page fails its test
    instead of opening Home.
    """
    return {address(e.path): e.path for entries in SECTIONS.values() for e in entries}[address_]
