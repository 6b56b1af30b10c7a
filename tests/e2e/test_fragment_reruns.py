"""A page control's rerun sends only what the control can change (protocol level, a real server).

A page's own controls live in an ``st.fragment``: moving one reruns that fragment, and the server
sends its elements again. The lesson's notes, the predict-then-reveal question and the source code
never change with those controls, so they are drawn outside the fragment: the rerun must not carry
them (a class of students moving sliders would make the server build and send them every time).

Each test opens a page as the browser does (the websocket protocol of ``benchmarks/bench_classroom.py``,
no Chromium), checks that the first run drew the code, then moves the page's first slider that
lives in a fragment and checks what that rerun sent.
"""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.bench_classroom import Session, pick_control

# The pages with a slider in a fragment and notes, a question and code below it. (Inside a real
# transformer and Estimators have only choices in theirs; tests/test_page_fragments.py checks every
# page's source for the same layout.)
PAGES = [
    "/mean",
    "/variance",
    "/standardize",
    "/which_axis",
    "/train_vs_inference",
    "/depth_and_drift",
    "/learning_rate",
]


async def _open_and_move(base: str, page: str) -> tuple[list[str], list[str], str]:
    """(element kinds of the first run, of the rerun after one move, the moved control)."""
    s = Session(base, page)
    try:
        await s.connect()
        first = await s.load(120)
        assert first.finished and not first.exceptions, (page, first)
        control = pick_control(s.elements, in_fragment=True)
        assert control is not None, f"{page}: no slider inside a fragment"
        s.control = control
        loaded = [kind for kind, _ in s.sent]
        moved = await s.move(1, 120)
        assert moved.finished and not moved.exceptions, (page, moved)
        return loaded, [kind for kind, _ in s.sent], control.describe()
    finally:
        await s.close()


@pytest.mark.parametrize("page", PAGES)
def test_a_page_controls_rerun_sends_no_notes_question_or_code(server: str, page: str) -> None:
    loaded, rerun, control = asyncio.run(_open_and_move(server, page))
    assert "code" in loaded, f"{page}: the first run drew no code, so this test would prove nothing"
    assert rerun, f"{page}: moving {control} sent nothing"
    assert "code" not in rerun, f"{page}: moving {control} sent the source code again: {rerun}"
    assert "button" not in rerun or page == "/train_vs_inference", (page, rerun)  # the question's button
    assert len(rerun) < len(loaded), (page, len(rerun), len(loaded))
