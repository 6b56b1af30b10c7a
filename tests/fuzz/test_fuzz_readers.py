"""Generated inputs straight into the readers the sidebar uses, and into the number formatter.

Fast (no app): thousands of examples a second. The app fuzzer (``test_fuzz_app.py``) drives the
same inputs through the sidebar; here every branch of the readers gets many more of them.
``FUZZ_READER_EXAMPLES`` sets the examples per test (default 200, the same ones every run);
``FUZZ_RANDOM=1`` draws new ones (``make fuzz`` runs 2,000 random examples per test).
"""

from __future__ import annotations

import math
import os
import string
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layernorm as ln
from fuzz.oracle import shown_matches
from fuzz.strategies import (
    Accept,
    Reject,
    bad_tokens,
    csv_invalid,
    csv_valid,
    npy_invalid,
    npy_valid,
    spelled,
    typed_invalid,
    typed_unsure,
    typed_valid,
    upload_unsure,
)

pytestmark = pytest.mark.fuzz
ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = int(os.environ.get("FUZZ_READER_EXAMPLES", "200"))
fast = settings(
    max_examples=EXAMPLES,
    derandomize=os.environ.get("FUZZ_RANDOM") != "1",  # the same examples on every CI run
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def usable(x: np.ndarray) -> bool:
    """What every reader promises about a vector it returns."""
    return (
        isinstance(x, np.ndarray)
        and x.dtype == np.float64
        and x.ndim == 1
        and 1 <= x.size <= ln.MAX_VALUES
        and bool(np.all(np.isfinite(x)))
        and bool(np.all(np.abs(x) <= 1e150))
        and bool(np.all((x == 0) | (np.abs(x) >= np.finfo(np.float64).tiny)))  # no subnormals
    )


def read_or_none(read, *args):
    """The reader's vector, or None when it refuses with InputError; any other exception propagates."""
    try:
        x = read(*args)
    except ln.InputError as exc:
        assert str(exc).strip(), "an InputError needs a message for the user"
        return None
    assert usable(x), f"the reader returned {x!r}"
    return x


def read_as_expected(x: np.ndarray | None, expect: object, what: str) -> None:
    """``x``, what a reader made of ``what`` (None: it refused), is what the case expects: an Accept's
    array exactly, a refusal for a Reject; either for a case that is unsure."""
    if isinstance(expect, Accept):
        assert x is not None, f"refused the valid {what}"
        np.testing.assert_array_equal(x, expect.array())
    elif isinstance(expect, Reject):
        assert x is None, f"accepted {x!r} from the {what} although {expect.why}"


# --- typed text ------------------------------------------------------------------------------------


@fast
@given(case=st.one_of(typed_valid(), typed_invalid(), typed_unsure()))
def test_typed_text_reads_exactly_or_refuses_in_words(case) -> None:
    x = read_or_none(ln.parse_vector_text, case.text)
    read_as_expected(x, case.expect, f"text {case.text!r}")


# --- table cells -----------------------------------------------------------------------------------


@fast
@given(
    cells=st.lists(
        st.one_of(spelled().map(lambda t: (t[0], t[1])), bad_tokens.map(lambda t: (t, None))),
        min_size=1,
        max_size=20,
    )
)
def test_table_cells_read_exactly_or_refuse(cells: list[tuple[str, float | None]]) -> None:
    x = read_or_none(ln.vector_from_table, [c for c, _ in cells])
    if all(v is not None for _, v in cells):
        assert x is not None, f"refused the cells {cells}"
        np.testing.assert_array_equal(x, [v for _, v in cells])
    else:
        assert x is None, f"accepted {x!r} from cells with a bad one: {cells}"


@fast
@given(cells=st.lists(st.one_of(st.none(), st.floats(), st.integers(), st.text(max_size=12)), max_size=12))
def test_any_table_column_gives_a_vector_or_a_message(cells: list[object]) -> None:
    read_or_none(ln.vector_from_table, cells)


# --- uploads ---------------------------------------------------------------------------------------


@fast
@given(case=st.one_of(csv_valid(), npy_valid(), csv_invalid(), npy_invalid()))
def test_uploads_read_exactly_or_refuse_in_words(case) -> None:
    x = read_or_none(ln.read_uploaded_vector, case.name, case.data)
    read_as_expected(x, case.expect, f"upload {case!r}")


@fast
@given(case=upload_unsure(), name=st.sampled_from(["v.csv", "v.txt", "v.npy", "V.NPY", "v.npz"]))
def test_any_bytes_give_a_vector_or_a_message(case, name: str) -> None:
    read_or_none(ln.read_uploaded_vector, name, case.data)


# --- one spelling, one number, wherever it is written -----------------------------------------------

token = st.one_of(
    spelled().map(lambda t: t[0]),
    bad_tokens,
    st.text(alphabet=string.digits + "+-.eE_\u2212\uff10\uff11\uff0e", min_size=1, max_size=8),
).filter(lambda t: t.strip() and not any(c in t for c in ",;()[]{}\"'\t\n\r ") and t[0] != "#")


@fast
@given(t=token)
def test_a_number_means_the_same_typed_in_a_cell_or_in_a_file(t: str) -> None:
    typed = read_or_none(ln.parse_vector_text, t)
    cell = read_or_none(ln.vector_from_table, [t])
    in_file = read_or_none(ln.read_uploaded_vector, "v.csv", f"{t}\n{t}\n".encode())
    got = {"typed": typed, "table cell": cell, "CSV column": None if in_file is None else in_file[:1]}
    accepted = {k: v for k, v in got.items() if v is not None}
    if accepted and len(accepted) < len(got):
        refused = sorted(set(got) - set(accepted))
        pytest.fail(f"{t!r} is read as {accepted} but refused as {refused}")
    values = {float(v[0]) for v in accepted.values()}
    assert len(values) <= 1, f"{t!r} reads as different numbers: {accepted}"


# --- numbers on screen -----------------------------------------------------------------------------


@fast
@given(
    v=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(-1e6, 1e6),
        st.sampled_from([0.0, -0.0, 0.5, 9.99995, 99999.5, 1e5, 0.001, 0.00099995, 1e-300, 5e-324]),
    ),
    digits=st.integers(1, 17),
)
def test_fmt_shows_the_number_within_its_digits(v: float, digits: int) -> None:
    from ui.text import fmt

    text = fmt(v, digits)
    if math.isnan(v):
        assert text == "NaN"
        return
    why = shown_matches(text, v)
    assert why is None, f"fmt({v!r}, {digits}) {why}"


# --- size: a file far over the limit is refused at once, not after minutes --------------------------

OVERSIZED = {
    "one row of 50,000 values (100 KB)": b"1," * 50_000,
    "one line of 500,000 space-separated values (1 MB)": b"1 " * 500_000,
    "a 300 x 300 table (350 KB)": b"\n".join([b",".join([b"1.5"] * 300)] * 300),
    "200,000 rows (400 KB)": b"1\n" * 200_000,
}
SECONDS_EACH = 5.0  # reading 4096 values takes milliseconds; a 50 times larger file may take this long
BUDGET = 30.0  # the whole check, in a child process that is killed when it is over


_CHILD = """
import sys, time
from pathlib import Path
import layernorm as ln
for path in sys.argv[1:]:
    data = Path(path).read_bytes()
    start = time.perf_counter()
    try:
        ln.read_uploaded_vector("big.csv", data)
        verdict = "accepted"
    except ln.InputError:
        verdict = "refused"
    print(f"{Path(path).stem}\t{time.perf_counter() - start:.2f}\t{verdict}", flush=True)
"""


def test_oversized_uploads_are_refused_within_seconds(tmp_path: Path) -> None:
    """Found by the fuzzer: the lab's limit is 4096 values, yet a 1 MB one-line file held the session
    (and, through the GIL, every other session of the server) for minutes before it was refused."""
    paths = []
    for i, data in enumerate(OVERSIZED.values()):
        paths.append(tmp_path / f"{i}.csv")
        paths[-1].write_bytes(data)
    names = list(OVERSIZED)
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, *map(str, paths)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        out, _ = proc.communicate(timeout=BUDGET)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    done = [line.split("\t") for line in out.splitlines() if line.count("\t") == 2]
    problems = [
        f"{names[int(i)]}: {verdict} after {seconds} s"
        for i, seconds, verdict in done
        if verdict != "refused" or float(seconds) > SECONDS_EACH
    ]
    if len(done) < len(names):
        problems.append(f"{names[len(done)]}: still reading after the {BUDGET:.0f} s budget")
    assert not problems, "; ".join(problems)
