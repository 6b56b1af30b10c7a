"""Table cells and uploads in a real browser: a cell means what the same text means in the text box.

Regression: the sidebar's "Edit a table" grid and the per-feature γ/β grid were NumberColumns. The
grid's own cell editor (glide-data-grid, in the browser) parsed what was typed before the app saw it:
double-click, ``1e-8``, Enter gave x₁ = -18; ``−3`` (U+2212) gave 3; a selected cell and ``.01``
gave 1, all without a message. The cells are text now and ``ln.parse_number`` reads them. An uploaded
``−3\\n1\\n2`` lost its first row as a "header" without a word.

The grid is a canvas: a cell is addressed by its position inside ``[data-testid="stDataFrame"]``
(35 px rows under a 35 px header); its text is read back from the grid's accessible table
(``data-testid="glide-cell-<column>-<row>"``). Typing goes through real key events, one character at
a time, so the grid's "start editing on a key press" path runs; ``page.keyboard`` cannot press a
character that is not on a US keyboard (``−``, ``１``), so those are sent as key events through CDP.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from playwright.sync_api import CDPSession, Locator, expect

import layernorm as ln
from e2e.support import Lab, page_by_url, query
from ui.text import fmt

pytestmark = pytest.mark.browser

MEAN = page_by_url("/mean")
VARIANCE = page_by_url("/variance")
SCALE_SHIFT = page_by_url("/scale_shift")
ROW_PX = 35  # the grid's row height and header height (Streamlit's default)
# Between key presses: the cell editor opens on the first key and must be there for the next one.
KEY_PAUSE_S = 0.12
WAYS = ["double-click", "select"]
DOUBLE_CLICK_GAP_S = 0.06  # between the two presses of a double click; a quick hand takes 60-150 ms


def mu(x: list[float]) -> str:
    """μ as the Mean page shows it (the vectors here never need more than fmt's 4 digits)."""
    return fmt(float(ln.mean(np.asarray(x, dtype=float))))


def mean_y(x: list[float], gamma: list[float], beta: list[float]) -> str:
    """The "mean of y" metric of Scale & shift, from the core (no y here prints like the mean)."""
    y = ln.layer_norm_steps(np.asarray(x, float), np.asarray(gamma, float), np.asarray(beta, float)).y
    return fmt(float(ln.mean(y)))


class Grid:
    """One ``st.data_editor`` on screen: click cells by position and type into them with key events."""

    def __init__(self, lab: Lab, box: Locator, columns: list[float]) -> None:
        self.lab, self.page, self.box = lab, lab.page, box
        self.columns = columns  # x of each data column, as a fraction of the grid's width
        self.cdp: CDPSession = lab.page.context.new_cdp_session(lab.page)

    def point(self, row: int, col: int = 0) -> tuple[float, float]:
        self.box.scroll_into_view_if_needed()
        b = self.box.bounding_box()
        assert b is not None, "the grid is not on screen"
        return b["x"] + b["width"] * self.columns[col], b["y"] + ROW_PX * (row + 1) + ROW_PX / 2

    def cell_text(self, row: int, col: int = 0) -> Locator:
        """The grid's own (accessible) copy of a cell's text: what the user sees in it."""
        return self.box.locator(f'[data-testid="glide-cell-{col + 1}-{row}"]')

    def keys(self, text: str) -> None:
        for ch in text:
            if ch.isascii():
                self.page.keyboard.press(ch)
            else:  # a real key event for a character a US keyboard lacks
                self.cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch})
                self.cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})
            time.sleep(KEY_PAUSE_S)

    @property
    def editor(self) -> Locator:
        """The grid's cell editor over the canvas while a cell is being edited (text or number editor)."""
        return self.page.locator(".gdg-input")

    def double_click(self, x: float, y: float) -> None:
        """A double click at a person's speed (the second press DOUBLE_CLICK_GAP_S after the first).

        ``page.mouse.dblclick`` sends its five events within about a millisecond. glide-data-grid
        then drops the edit when the cell was edited before (no message reaches the server; a bare
        ``st.data_editor`` does the same on Streamlit 1.50, 1.60 and 1.67). A 30 ms gap is enough for
        every edit to land, and no hand double-clicks faster than that.
        """
        m = self.page.mouse
        m.move(x, y)
        m.down()
        m.up()
        time.sleep(DOUBLE_CLICK_GAP_S)
        m.down(click_count=2)
        m.up(click_count=2)

    def enter(self, row: int, text: str, way: str, col: int = 0) -> None:
        """Write ``text`` into a cell the way a user does, check the editor shows it, then Enter."""
        x, y = self.point(row, col)
        if way == "double-click":  # opens the cell editor with its old text selected
            self.double_click(x, y)
            try:
                expect(self.editor).to_be_visible(timeout=2_000)
            except AssertionError:  # this process stalled past the grid's 500 ms between the presses:
                self.double_click(x, y)  # two single clicks, as a hand that paused; it doubles again
                expect(self.editor).to_be_visible()
            self.keys(text)
        else:  # a selected cell: the first key press opens the editor with that character
            self.page.mouse.click(x, y)
            expect(self.cell_text(row, col)).to_have_attribute("aria-selected", "true")
            self.keys(text[0])
            expect(self.editor).to_have_value(text[0])
            self.keys(text[1:])
        expect(self.editor).to_have_value(text)  # what the user sees while typing
        self.page.keyboard.press("Enter")
        expect(self.cell_text(row, col)).to_have_text(text)
        self.lab.wait_idle()

    def toolbar(self, label: str) -> Locator:
        self.box.hover()
        return self.box.locator(f'[data-testid="stElementToolbar"] button[aria-label="{label}"]')


def sidebar_grid(lab: Lab) -> Grid:
    box = lab.sidebar.locator('[data-testid="stDataFrame"]')
    expect(box).to_have_count(1)
    return Grid(lab, box, [0.6])


def alert(scope: Locator, text: str) -> Locator:
    return scope.locator('[data-testid="stAlert"]').filter(has_text=text)


def choose_source(lab: Lab, source: str) -> None:
    lab.sidebar.get_by_role("combobox", name="Input").click()
    lab.page.get_by_role("option", name=source, exact=True).click()
    expect(lab.sidebar.get_by_role("combobox", name="Input")).to_have_value(source)
    lab.wait_idle()


# --- the sidebar table ------------------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_table_cells_read_like_typed_text(lab: Lab, way: str) -> None:
    lab.open(MEAN, query(src="Edit a table"))
    grid = sidebar_grid(lab)
    mu_value = lab.metric("μ (mean)")
    x = [1.0, 2.0, 3.0, 4.0]
    expect(mu_value).to_have_text(mu(x))

    for row, text, value in [(0, "1e-8", 1e-8), (1, "\u22123", -3.0), (2, ".01", 0.01)]:
        grid.enter(row, text, way)
        x[row] = value
        expect(mu_value).to_have_text(mu(x))  # the old grid gave -18, 3 and 1 here
        expect(alert(lab.sidebar, "Row")).to_have_count(0)

    grid.enter(3, "abc", way)  # not a number: named, the text stays in the cell, the last vector is used
    expect(alert(lab.sidebar, "Row 4 of the table is 'abc', which is not a number")).to_be_visible()
    expect(lab.page.locator('[data-testid="stMain"]')).to_contain_text("Your input has a problem")
    expect(grid.cell_text(3)).to_have_text("abc")
    expect(mu_value).to_have_text(mu(x))

    grid.enter(3, "\uff11\uff12", way)  # full-width digits
    x[3] = 12.0
    expect(mu_value).to_have_text(mu(x))
    expect(alert(lab.sidebar, "Row 4")).to_have_count(0)
    lab.assert_clean()


@pytest.mark.parametrize("way", WAYS)
def test_the_same_cell_edited_again_and_again_keeps_the_last_edit(lab: Lab, way: str) -> None:
    """A student tries 9, then 7, then 5 in one cell, with another cell edited in between.

    Found in QA: a second edit of the same cell seemed lost. It was the test tool's 1 ms double click
    (see ``Grid.double_click``); at a person's speed every edit lands, and this keeps it so.
    """
    lab.open(MEAN, query(src="Edit a table"))
    grid = sidebar_grid(lab)
    mu_value = lab.metric("μ (mean)")
    x = [1.0, 2.0, 3.0, 4.0]
    for row, text in [(1, "9"), (1, "7"), (2, "\u22122"), (1, "5"), (1, "5.5")]:
        grid.enter(row, text, way)
        x[row] = ln.parse_number(text)
        expect(grid.cell_text(row)).to_have_text(text)
        expect(mu_value).to_have_text(mu(x))
    lab.nav_to(VARIANCE)  # the last edits, not the first, are what the next page uses
    expect(lab.metric("σ² (÷d, population)")).to_have_text(fmt(float(ln.variance(x))))
    lab.assert_clean()


def test_table_rows_added_deleted_and_kept_across_switches(lab: Lab) -> None:
    lab.open(MEAN, query(src="Edit a table"))
    grid = sidebar_grid(lab)
    mu_value = lab.metric("μ (mean)")
    grid.enter(1, "\u22123", "select")
    x = [1.0, -3.0, 3.0, 4.0]
    expect(mu_value).to_have_text(mu(x))

    grid.toolbar("Add row").click()  # an empty row: said in words, the last valid vector stays
    expect(alert(lab.sidebar, "Row 5 of the table is empty")).to_be_visible()
    expect(mu_value).to_have_text(mu(x))
    lab.wait_idle()
    grid.page.mouse.click(*grid.point(0))  # then down to the new row with the keyboard
    expect(grid.cell_text(0)).to_have_attribute("aria-selected", "true")
    for row in range(1, 5):
        grid.page.keyboard.press("ArrowDown")
        expect(grid.cell_text(row)).to_have_attribute("aria-selected", "true")
    grid.page.keyboard.press("Enter")  # open the new row's editor from the keyboard
    expect(grid.editor).to_have_value("")
    grid.keys(" 2 ")  # surrounding spaces
    expect(grid.editor).to_have_value(" 2 ")
    grid.page.keyboard.press("Enter")
    x.append(2.0)
    expect(lab.metric("d (features)")).to_have_text("5")
    expect(mu_value).to_have_text(mu(x))
    expect(alert(lab.sidebar, "Row 5")).to_have_count(0)

    b = grid.box.bounding_box()
    assert b is not None
    grid.page.mouse.click(b["x"] + 12, b["y"] + ROW_PX * 3 + ROW_PX / 2)  # row 3's marker
    grid.toolbar("Delete row(s)").click()
    del x[2]
    expect(lab.metric("d (features)")).to_have_text("4")
    expect(mu_value).to_have_text(mu(x))

    choose_source(lab, "Preset")  # away and back: the user's text comes back
    expect(mu_value).not_to_have_text(mu(x))
    choose_source(lab, "Edit a table")
    expect(mu_value).to_have_text(mu(x))
    grid = sidebar_grid(lab)
    expect(grid.cell_text(1)).to_have_text("\u22123")

    lab.nav_to(VARIANCE)  # and across a page switch
    expect(lab.metric("σ² (÷d, population)")).to_have_text(fmt(float(ln.variance(x))))
    lab.nav_to(MEAN)
    expect(lab.metric("μ (mean)")).to_have_text(mu(x))
    expect(sidebar_grid(lab).cell_text(1)).to_have_text("\u22123")
    lab.assert_clean()


# --- the per-feature γ/β table on Scale & shift ---------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_gamma_beta_cells_read_like_typed_text(lab: Lab, way: str) -> None:
    x = [1.0, 2.0, 4.0, 8.0]
    lab.open(SCALE_SHIFT, query(src="Type numbers"))
    lab.type_numbers("1, 2, 4, 8")  # every check below depends on x, so a stale x fails them
    lab.wait_idle()
    lab.page.get_by_role("button", name="Edit γ, β per feature").click()
    main = lab.page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stDataFrame"]')
    expect(box).to_have_count(1)
    grid = Grid(lab, box, [0.3, 0.75])  # γ fills the left half after the row numbers, β the right
    expect(grid.cell_text(0, 0)).to_have_text("1")
    expect(grid.cell_text(0, 1)).to_have_text("0")
    value = lab.metric("mean of y")
    gamma, beta = [1.0] * 4, [0.0] * 4

    for row, col, text, number in [(0, 0, "\u22123", -3.0), (1, 1, "1e-8", 1e-8), (2, 1, ".01", 0.01)]:
        grid.enter(row, text, way, col)
        (gamma if col == 0 else beta)[row] = number
        expect(value).to_have_text(mean_y(x, gamma, beta))

    grid.enter(3, "abc", way, 0)
    expect(alert(main, "Row 4 of the γ column is 'abc', which is not a number")).to_be_visible()
    expect(grid.cell_text(3, 0)).to_have_text("abc")
    expect(value).to_have_text(mean_y(x, gamma, beta))  # the last valid values

    grid.enter(3, "\uff11\uff12", way, 0)
    gamma[3] = 12.0
    expect(value).to_have_text(mean_y(x, gamma, beta))
    expect(alert(main, "Row 4")).to_have_count(0)

    lab.nav_to(MEAN)  # the kept γ, β, as written, come back with the page
    lab.nav_to(SCALE_SHIFT)
    grid = Grid(lab, lab.page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]'), [0.3, 0.75])
    expect(grid.cell_text(0, 0)).to_have_text("\u22123")
    expect(grid.cell_text(3, 0)).to_have_text("\uff11\uff12")
    expect(lab.metric("mean of y")).to_have_text(mean_y(x, gamma, beta))
    lab.assert_clean()


def test_gamma_beta_cells_fixed_after_a_sidebar_move(lab: Lab) -> None:
    """An invalid cell, then ε moved (only the lab section reruns), then the cell fixed: the fix counts.

    A browser QA pass saw the fix ignored after the ε move (the grid kept "x" and its error); the
    grid then sits in a lab section that the sidebar reran alone.
    """
    x = [1.0, 2.0, 4.0, 8.0]
    lab.open(SCALE_SHIFT, query(src="Type numbers", typed="1, 2, 4, 8"))
    lab.page.get_by_role("button", name="Edit γ, β per feature").click()
    main = lab.page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stDataFrame"]')
    expect(box).to_have_count(1)
    grid = Grid(lab, box, [0.3, 0.75])
    value = lab.metric("mean of y")
    gamma, beta = [2.0, 1.0, 1.0, 1.0], [0.0] * 4
    grid.enter(0, "2", "double-click", 0)
    expect(value).to_have_text(mean_y(x, gamma, beta))
    grid.enter(2, "x", "double-click", 0)
    expect(alert(main, "Row 3 of the γ column is 'x'")).to_be_visible()
    thumb = lab.slider("ε (inside the square root)", in_sidebar=True)
    thumb.focus()
    thumb.press("ArrowRight")
    expect(lab.page).to_have_url(re.compile(r"eps=2e-05"))
    lab.wait_idle()
    expect(alert(main, "Row 3 of the γ column is 'x'")).to_be_visible()  # still invalid, still said
    grid = Grid(lab, main.locator('[data-testid="stDataFrame"]'), [0.3, 0.75])
    grid.enter(2, "3", "double-click", 0)
    gamma[2] = 3.0
    expect(alert(main, "Row 3")).to_have_count(0)
    steps = ln.layer_norm_steps(np.asarray(x), np.asarray(gamma), np.asarray(beta), eps=2e-5)
    expect(value).to_have_text(fmt(float(ln.mean(steps.y))))
    lab.assert_clean()


# --- uploads ------------------------------------------------------------------------------------------


def upload(lab: Lab, name: str, data: bytes) -> None:
    lab.sidebar.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": data}
    )


def test_upload_reads_a_typographic_minus_and_says_when_it_skips_a_header(lab: Lab) -> None:
    lab.open(MEAN, query(src="Upload a file"))
    mu_value = lab.metric("μ (mean)")
    upload(lab, "minus.csv", "\u22123\n1\n2\n".encode())
    expect(lab.sidebar).to_contain_text("minus.csv")
    expect(mu_value).to_have_text(mu([-3.0, 1.0, 2.0]))  # was 1.5: "−3" was dropped as a header
    expect(lab.sidebar).not_to_contain_text("column name")

    upload(lab, "header.csv", b"x\n1\n2\n")
    note = lab.sidebar.get_by_text(re.compile(r"The first row \(x\) was read as a column name and skipped"))
    expect(note).to_be_visible()
    expect(mu_value).to_have_text(mu([1.0, 2.0]))
    lab.assert_clean()


# --- the grid's hover toolbar ---------------------------------------------------------------------

CONTROLS = (
    'button, input, textarea, [role="combobox"], [role="slider"], [role="radio"], [role="checkbox"], '
    '[data-testid="stSelectbox"], [data-testid="stSlider"]'
)


def _settled_box(element: Locator) -> dict[str, float]:
    """The element's box once it stops moving (two reads 0.2 s apart agree), at most 5 s."""
    last = None
    for _ in range(25):
        now = element.bounding_box()
        if now is not None and now == last:
            return dict(now)
        last = now
        time.sleep(0.2)
    raise AssertionError(f"still moving after 5 s: {last}")


@pytest.mark.parametrize(
    ("url", "scope"),
    [
        ("/mean?src=Edit+a+table", "stSidebar"),
        ("/scale_shift?affine_mode=Per+feature+%28edit+on+Scale+%26+shift%29", "stMain"),
        ("/full_formula", "stMain"),
        ("/which_axis", "stMain"),
        ("/inside_a_transformer", "stMain"),
    ],
)
def test_a_grids_hover_toolbar_covers_no_control(lab: Lab, url: str, scope: str) -> None:
    # The toolbar (add row, search, download, full screen) floats above a grid while the mouse is on
    # it. Over the sidebar's table it covered the Input box's arrow: a click meant for the Input box
    # added a row (a QA pass). Whatever sits right above a grid must not be a control.
    lab.open(page_by_url(url.split("?")[0]), url[len(url.split("?")[0]) :])
    grids = lab.page.locator(f'[data-testid="{scope}"] [data-testid="stDataFrame"]')
    expect(grids.first).to_be_visible()
    for g in range(grids.count()):
        grid = grids.nth(g)
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        assert box is not None
        lab.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 50)
        toolbar = lab.page.locator('[data-testid="stElementToolbar"]').filter(has=lab.page.locator("button"))
        expect(toolbar.first).to_be_visible()
        tb = _settled_box(toolbar.first)  # it slides into place
        covered = lab.page.evaluate(
            """([sel, tb, grid]) => Array.from(document.querySelectorAll(sel)).filter(e => {
                   const own = '[data-testid="stElementToolbar"], [data-testid="stDataFrame"]';
                   if (e.closest(own)) return false;
                   const r = e.getBoundingClientRect();
                   if (!r.width || !r.height) return false;
                   return r.left < tb.x + tb.width && r.right > tb.x
                       && r.top < tb.y + tb.height && r.bottom > tb.y;
               }).map(e => e.outerHTML.slice(0, 120))""",
            [CONTROLS, tb, box],
        )
        assert covered == [], (url, g, covered)
    lab.assert_clean()
