"""Home: what the lab teaches and how to use it in class."""

import streamlit as st

from ui import class_views, live, tour
from ui.lessons import LESSONS
from ui.live import full_formula
from ui.live import sidebar as live_sidebar
from ui.navigation import SECTIONS
from ui.page import wrap_page_links
from ui.settings import LabInput
from ui.state import lab_input, lab_section


@lab_section("home_input")
def input_note(lab: LabInput) -> None:
    """Home shows the sidebar's input only as the warning ``lab_input`` draws when it has a problem.

    A section that reads none of ε, γ, β, d and seed: their moves here rerun nothing of Home (a full
    rerun sent its 61 unchanged elements again). A move never brings a problem: the sidebar then
    reruns the whole page (``ui.sidebar.moved_lab``).
    """
    lab_input()


input_note()
wrap_page_links()
st.title("LayerNorm Lab")
st.markdown(
    "A transformer hands each token from layer to layer as a long list of numbers — 384 in MiniLM, "
    "768 in BERT-base, 1600 in GPT-2 XL. **Layer Normalization** re-centres and re-scales every token "
    "using only that token's own numbers, then applies a learned scale γ and shift β, one per feature "
    "and the same for every token. This lab walks one vector through every term, with numbers you can "
    "change."
)
if not tour.step():  # new here: one path through the lesson, one thing to do at each step
    tour.start_button(key="tour_start_home")
st.markdown(
    "Why does it help training? The first explanation offered, that it stops each layer's inputs "
    "from drifting as the layers before them learn (“internal covariate shift”), is disputed: later "
    "experiments found BatchNorm networks training about as well with that drift deliberately put "
    "back in. What holds up is that normalization keeps the size of the activations in check from "
    "layer to layer, makes the loss smoother to optimize, and so lets a network train with larger "
    "learning rates. LLaMA and many newer models use RMSNorm, a cousin that skips the centring."
)
# Two lines: on one, the definitions of μ and σ² ran past a 1024-pixel projector's column.
st.latex(
    r"\mathrm{LayerNorm}(\mathbf{x}) = \gamma \odot \frac{\mathbf{x} - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta"
)
st.latex(r"\mu = \frac{1}{d}\sum_{i=1}^{d} x_i \qquad \sigma^2 = \frac{1}{d}\sum_{i=1}^{d}(x_i-\mu)^2")


@lab_section("home_formula")
def your_vector(lab: LabInput) -> None:
    """The formula with the sidebar's vector in it: its ε, γ and β move it during a drag."""

    def view(at: LabInput) -> live.Frame:
        return full_formula.frame(at.x, at.gamma, at.beta, at.eps)

    live_sidebar.view(view, None, lab)
    st.caption("Your vector (sidebar), through the formula: move ε, γ or β and watch every term.")
    shown = view(lab)
    live.readout(shown.readout(full_formula.XHAT))
    live.readout(shown.readout(full_formula.Y))


your_vector()

left, right = st.columns(2, gap="large")
with left:
    st.subheader("The lessons")
    for n, (section, entries) in enumerate(SECTIONS.items()):
        lessons = [e for e in entries if e.question is not None]
        if lessons and n > 1:  # the first lessons, the formula step by step, need no heading
            st.markdown(f"**{section}**")
        for path, title, icon, question in lessons:
            st.page_link(path, label=f"{title} — {question}", icon=icon)
with right:
    class_views.home_section()
    st.subheader("Using it in class")
    st.markdown(
        "- Pick the vector in the **sidebar**: a preset, numbers you type, a table, a file "
        "(.csv or .npy), or a **real token** from the MiniLM sentence transformer.\n"
        "- The same vector, γ, β and ε follow you from page to page, so the class sees one "
        "example travel through the whole formula.\n"
        "- Each lesson page ends with **What to notice** and a **Predict, then check** question: ask "
        "the room before pressing *Reveal*.\n"
        "- Every setting is in the page address — the sidebar's (input, preset, d, seed, typed numbers, "
        "real token, ε, γ, β) and each page's own controls: copy the link and the class sees your view. "
        "Table edits, per-feature γ, β and uploaded files stay in your browser session.\n"
        "- Every number comes from the project's NumPy core; each lesson page shows that code at the "
        "bottom."
    )
    st.subheader("Lesson links")
    st.caption(
        "Each link opens a page set up for one teaching moment (the settings are in the address, so you "
        "can paste it into slides or a message to the class)."
    )
    for lesson in LESSONS:
        st.page_link(lesson.page, label=lesson.title, icon=":material/link:", query_params=lesson.params)
        st.caption(lesson.point)
st.info(
    "Conventions, as in PyTorch: population variance (÷d), ε inside the square root (default 1e-5), "
    "γ starts at 1 and β at 0 (PyTorch calls them `weight` and `bias`). Other frameworks differ: "
    "Keras uses ε = 1e-3, BERT-family models 1e-12.",
    icon=":material/info:",
)
