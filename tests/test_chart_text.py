"""A chart in words (ui/chart_text.py): its name, summary and table, read off the figure it draws."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui import chart_text, charts


def test_a_feature_chart_in_words() -> None:
    fig = charts.feature_chart(
        [("x", np.array([1.0, 2.5, -3.0, 4.0])), ("x_hat", np.array([0.25, 0.5, -1.5, 1.0]))],
        "Your <b>vector</b> x",
        hlines=[("mu", 1.125, "μ = 1.125")],
    )
    said = chart_text.describe(fig)
    assert said.name == "Your vector x"
    assert said.summary == (
        "x (input): 4 values, from −3 (at feature 3) to 4 (at feature 4). "
        "x̂ (normalized): 4 values, from −1.5 (at feature 3) to 1 (at feature 4). Marked: μ = 1.125."
    )
    assert said.columns == ["feature", "x (input)", "x̂ (normalized)"]
    assert said.rows == [["1", "1", "0.25"], ["2", "2.5", "0.5"], ["3", "−3", "−1.5"], ["4", "4", "1"]]
    assert said.note == "4 rows"


def test_named_points_one_value_and_equal_values() -> None:
    fig = go.Figure(
        [
            go.Bar(x=[3.0, -1.0], y=["a", "b"], orientation="h", name="across"),
            go.Bar(x=["only"], y=[0.5], name="one"),
            go.Bar(x=["p", "q"], y=[2.0, 2.0], name="flat"),
        ]
    )
    said = chart_text.describe(fig)
    assert said.name == "Chart"
    assert said.summary == "across: 2 values, from −1 (at b) to 3 (at a). one: 0.5. flat: 2 values, all 2."
    assert said.columns == ["trace", "point", "value"]  # the traces' points differ: one row a point
    assert said.rows[0] == ["across", "a", "3"] and len(said.rows) == 5


def test_a_long_vector_shows_its_first_rows_and_says_so() -> None:
    x = np.arange(768, dtype=float)
    said = chart_text.describe(charts.feature_chart([("x", x)], "x"))
    assert said.note == f"the first {chart_text.ROWS} of 768 rows"
    assert len(said.rows) == chart_text.ROWS and said.rows[-1][0] == str(chart_text.ROWS)
    assert "from 0 (at feature 1) to 767 (at feature 768)" in said.summary


def test_a_histogram_says_the_range_of_its_samples_and_a_diagram_its_labels() -> None:
    said = chart_text.describe(go.Figure(go.Histogram(x=[0.5, -1.25, 2.0], name="outputs")))
    assert said.summary == "outputs: 3 values, from −1.25 to 2."
    diagram = go.Figure(
        layout={"title": {"text": "A block"}, "annotations": [{"text": "LayerNorm"}, {"text": "<b>+</b>"}]}
    )
    said = chart_text.describe(diagram)
    assert (said.name, said.summary, said.rows) == ("A block", "A diagram: LayerNorm; +.", [])


def test_a_rounded_value_never_looks_exact() -> None:
    said = chart_text.describe(go.Figure(go.Bar(x=["a", "b"], y=[1.4999700009, 2.0], name="v")))
    assert said.summary == "v: 2 values, from 1.49997 (at a) to 2 (at b)."
    assert said.rows == [["a", "1.49997"], ["b", "2"]]


def test_a_heatmaps_cells_are_named_by_column_and_row_and_its_marks_as_places() -> None:
    fig = go.Figure(
        [
            go.Heatmap(z=[[1.0, 2.0, 3.0], [4.0, 9.0, 6.0]], x=[0.0, 1.0, 2.0], y=["a", "b"]),
            go.Scatter(x=[2], y=["a"], name="your cell", mode="markers"),
        ]
    )
    fig.update_layout(title="Grid", xaxis_title="feature i", yaxis_title="token")
    said = chart_text.describe(fig)
    assert said.summary == (
        "values: 6 values, from 1 (at feature 0, token a) to 9 (at feature 1, token b). "
        "Marked: your cell at feature 2, token a."
    )


def test_a_log10_colour_scale_is_read_back_as_the_values() -> None:
    """Coloured by log10 of the loss, with ticks 0.001 … 1: the words give the losses, not their logs
    (Learning rate's map said "final loss … from −1.564978 (at learning rate 14)")."""
    z = np.log10([[0.01, 0.5], [0.0272, 1.0]])
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=["0.001", "0.01"],
            y=["none", "LayerNorm"],
            colorbar={
                "title": {"text": "final loss"},
                "tickvals": [-3, -2, -1, 0],
                "ticktext": ["0.001", "0.01", "0.1", "1"],
            },
        )
    )
    fig.update_layout(title="Map", xaxis_title="learning rate")
    said = chart_text.describe(fig)
    assert said.summary == (
        "final loss: 4 values, from 0.01 (at learning rate 0.001, row none) to 1 (at learning rate 0.01, "
        "row LayerNorm)."
    )


def test_positions_on_a_number_line_are_written_as_the_lab_writes_numbers() -> None:
    """A break-it pass heard "(at x -6.881706237792969)" and "times 1.0" on Normalization now."""
    fig = go.Figure(
        go.Scatter(x=[-6.881706237792969, 1.0, 38.59893798828125], y=[-2.9897, 0.5, 2.9281], name="curve")
    )
    fig.update_xaxes(title_text="x")
    said = chart_text.describe(fig)
    assert said.summary == "curve: 3 values, from −2.9897 (at x −6.8817) to 2.9281 (at x 38.599)."
    assert [r[0] for r in said.rows] == ["−6.8817", "1", "38.599"]
