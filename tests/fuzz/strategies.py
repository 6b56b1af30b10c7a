"""Hypothesis strategies for everything a person can feed LayerNorm Lab.

Every generated input carries what it must become (:class:`Accept`), that it must be refused
(:class:`Reject`), or that nobody promised either way (:class:`Either`: then the app must agree
with the core's reader and never crash). Ground truth comes from the generator, not from the code
under test: a vector is drawn first and then *spelled* in ways the lab documents (``1e-8``,
``.5``, ``+3``, ``2.50``, the typographic minus ``−``), written as text, a table, a CSV or ``.npy``.
"""

from __future__ import annotations

import io
import math
import string
import zipfile
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

import layernorm as ln

MAX_VALUES = 4096
MAX_ABS = 1e150
MIN_ABS = float(np.finfo(np.float64).tiny)  # below it (subnormal, not 0) the readers refuse


# --- expectations ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Accept:
    """The input is valid and must become exactly ``x``."""

    x: tuple[float, ...]

    def array(self) -> np.ndarray:
        return np.asarray(self.x, dtype=np.float64)


@dataclass(frozen=True)
class Reject:
    """The input is invalid: the app must say so and keep the last valid vector."""

    why: str


@dataclass(frozen=True)
class Either:
    """No promise either way: the app must do what its core reader does, without crashing."""

    note: str = ""


Expect = Accept | Reject | Either


# --- numbers and their spellings -------------------------------------------------------------------

finite_floats = st.floats(
    min_value=-MAX_ABS, max_value=MAX_ABS, allow_nan=False, allow_infinity=False, allow_subnormal=False
)
nice_floats = st.one_of(
    st.integers(-1000, 1000).map(float),
    st.integers(-(10**6), 10**6).map(lambda k: k / 100),
    st.sampled_from(
        [0.0, -0.0, 1e-8, -1e-8, 0.1, 0.5, 1e-300, MIN_ABS, -MIN_ABS, 1e150, -1e150, 1e8 + 0.5, 2.0**53]
    ),
)
values = st.one_of(nice_floats, nice_floats, finite_floats)

MINUS_SIGNS = ["-", "\u2212", "\u2013", "\u2014"]  # ASCII, typographic minus, en dash, em dash


@st.composite
def spelled(draw: st.DrawFn, value: float | None = None) -> tuple[str, float]:
    """``(text, value)``: a documented spelling of a finite float that reads back exactly."""
    v = draw(values) if value is None else value
    base = repr(v)
    if v == int(v) and abs(v) < 1e16 and draw(st.booleans()):
        base = str(int(v)) if not (v == 0 and math.copysign(1, v) < 0) else "-0"
    elif draw(st.booleans()):
        base = f"{v:.16e}"  # 17 significant digits: exact
    mant, _, exp = base.partition("e")
    sign = ""
    if mant.startswith("-"):
        sign, mant = "-", mant[1:]
    if exp:
        if draw(st.booleans()):
            exp = str(int(exp))  # e-08 -> e-8
        exp = ("E" if draw(st.booleans()) else "e") + exp
    if "." in mant and draw(st.booleans()):
        mant = mant + "0" * draw(st.integers(1, 3))  # 2.5 -> 2.500
    if mant.startswith("0.") and draw(st.booleans()):
        mant = mant[1:]  # 0.5 -> .5
    if sign:
        sign = draw(st.sampled_from(MINUS_SIGNS))
    elif draw(st.integers(0, 5)) == 0:
        sign = "+"
    text = sign + mant + exp
    assert float(text.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", "-")) == v, text
    return text, v


BAD_TOKENS = [
    "abc",
    "x",
    "1.2.3",
    "--1",
    "1e",
    "e5",
    "0x1A",
    "1/2",
    "½",
    "10²",
    "$5",
    "5%",
    "∞",
    "true",
    "None",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e999",
    "1e151",
    "-2e160",
    # Markdown and HTML that a message quoting the token must not render
    "**bold**",
    "_it_",
    "`code`",
    "<b>x</b>",
    "<img src=x>",
    "$x^2$",
    ":red-background",
    "~~s~~",
    "#h",
    "a|b",
    "\\*",
    ":smile:",
    "x\\",
    "``",
    "<script>",
    "&amp;",
]
bad_tokens = st.one_of(
    st.sampled_from(BAD_TOKENS),
    st.text(alphabet=string.ascii_letters + "*_`<>$~|#:!&", min_size=1, max_size=12).filter(
        lambda t: not _reads_as_float(t)
    ),
)


def _reads_as_float(t: str) -> bool:
    try:
        float(t)
    except ValueError:
        return False
    return True


# --- typed text -------------------------------------------------------------------------------------

SEPARATORS = [", ", ",", " ", "  ", "\t", "\n", "; ", ";", "\r\n", ",\n", " , "]


@dataclass(frozen=True)
class TypedCase:
    text: str
    expect: Expect = field(compare=False)
    user_strings: tuple[str, ...] = field(default=(), compare=False)

    def __repr__(self) -> str:
        return f"TypedCase({_short(self.text)}, {self.expect!r})"


def _short(s: str | bytes, n: int = 160) -> str:
    r = repr(s)
    return r if len(r) <= n else f"{r[: n - 30]}…{r[-20:]} ({len(s)} chars)"


@st.composite
def vectors(draw: st.DrawFn, min_size: int = 1, max_size: int = 24) -> list[float]:
    """Mostly short vectors; about one in 25 has a real model's width (384, 768 or 4096)."""
    if draw(st.integers(0, 24)) < 24:  # shrinks towards 0: short
        size = draw(st.integers(min_size, max(max_size, min_size)))
        return draw(st.lists(values, min_size=size, max_size=size))
    # A model's width: drawn from a seeded generator, as thousands of separate draws are slow.
    size = draw(st.sampled_from([384, 768, MAX_VALUES]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([1.0, 1e-8, 1e8, 1e150]))
    return (rng.standard_normal(size) * scale).clip(-MAX_ABS, MAX_ABS).tolist()


def spell_all(draw: st.DrawFn, vec: list[float]) -> list[str]:
    """Spellings for a whole vector: each of the first 32 drawn on its own, the rest as ``repr``."""
    return [draw(spelled(v))[0] for v in vec[:32]] + [repr(v) for v in vec[32:]]


def _join(draw: st.DrawFn, tokens: list[str]) -> str:
    out = []
    rest = draw(st.sampled_from(SEPARATORS))  # one separator after the first 32 (long vectors)
    for i, tok in enumerate(tokens):
        if i:
            out.append(draw(st.sampled_from(SEPARATORS)) if i < 32 else rest)
        out.append(tok)
    text = "".join(out)
    wrap = draw(st.sampled_from(["", "", "[]", "()", "{}", "[[]]"]))
    if wrap:
        h = len(wrap) // 2
        text = wrap[:h] + text + wrap[h:]
    return (
        draw(st.sampled_from(["", " ", "\n", "  \t"]))
        + text
        + draw(st.sampled_from(["", " ", "\n", ",", ", "]))
    )


@st.composite
def typed_valid(draw: st.DrawFn) -> TypedCase:
    vec = draw(vectors())
    return TypedCase(_join(draw, spell_all(draw, vec)), Accept(tuple(vec)))


@st.composite
def typed_invalid(draw: st.DrawFn) -> TypedCase:
    kind = draw(st.sampled_from(["bad token", "bad token", "empty", "too many", "too large", "too small"]))
    if kind == "empty":
        return TypedCase(draw(st.sampled_from(["", " ", "\n\n", "[]", ",,,", " ; ", "()"])), Reject("empty"))
    if kind == "too many":
        n = draw(st.integers(MAX_VALUES + 1, MAX_VALUES + 50))
        return TypedCase(" ".join(["1"] * n), Reject("more than 4096 values"))
    vec = draw(vectors(max_size=8))
    tokens = spell_all(draw, vec)
    if kind == "too large":
        big = draw(st.floats(min_value=1.0001e150, max_value=1e300)) * draw(st.sampled_from([1, -1]))
        tokens.insert(draw(st.integers(0, len(tokens))), repr(big))
        return TypedCase(_join(draw, tokens), Reject("|x| above 1e150"))
    if kind == "too small":  # a subnormal, a literal that underflows to 0, an integer float64 rounds
        tiny = draw(st.sampled_from(["5e-324", "-1e-310", "2e-320", "1e-400", "-3E-999", "9007199254740993"]))
        tokens.insert(draw(st.integers(0, len(tokens))), tiny)
        return TypedCase(_join(draw, tokens), Reject(f"{tiny}: float64 would change it"))
    bad = draw(bad_tokens)
    tokens.insert(draw(st.integers(0, len(tokens))), bad)
    # brackets are ignored in typed text, so the app sees the token without them
    return TypedCase(_join(draw, tokens), Reject(f"token {bad!r}"), user_strings=(bad,))


# Spellings nobody promised (full-width digits, underscores, other scripts' digits, odd
# separators): the app must agree with the core's parser and never crash.
UNSURE_TOKENS = [
    "１２",
    "－３",
    "１．５",
    "1_000",
    "١٢",
    "१२",
    "٣.٥",
    "+-1",
    "1e+0_1",
    "0_0",
    "٫5",
    "⁻1",
    "1,5",
]


@st.composite
def typed_unsure(draw: st.DrawFn) -> TypedCase:
    if draw(st.booleans()):
        vec = draw(vectors(max_size=6))
        tokens = spell_all(draw, vec) + draw(st.lists(st.sampled_from(UNSURE_TOKENS), max_size=3))
        tokens = draw(st.permutations(tokens))
        text = _join(draw, tokens)
    else:
        text = draw(
            st.text(
                alphabet=st.characters(exclude_categories=("Cs",)),
                max_size=draw(st.sampled_from([8, 40, 2000])),
            )
        )
    return TypedCase(text, Either("free text"), user_strings=(text,))


typed_cases = st.one_of(typed_valid(), typed_valid(), typed_invalid(), typed_unsure())


# --- table edits (the sidebar's data editor, text cells) -------------------------------------------


@dataclass(frozen=True)
class Cell:
    """A table cell as the user left it, and what it must read as."""

    raw: str | float | None
    expect: float | str  # a float, "bad" (must be refused) or "unsure" (whatever the core says)

    def __repr__(self) -> str:
        return f"Cell({_short(self.raw) if isinstance(self.raw, str) else self.raw!r})"


@st.composite
def cells(draw: st.DrawFn) -> Cell:
    kind = draw(st.sampled_from(["ok", "ok", "ok", "ok", "spaces", "bad", "empty", "unsure"]))
    if kind == "ok":
        text, v = draw(spelled())
        return Cell(text, v)
    if kind == "spaces":
        text, v = draw(spelled())
        return Cell(draw(st.sampled_from([" ", "  ", "\t"])) + text + draw(st.sampled_from(["", " "])), v)
    if kind == "bad":
        return Cell(draw(bad_tokens), "bad")
    if kind == "empty":
        return Cell(draw(st.sampled_from([None, "", " "])), "bad")
    return Cell(draw(st.one_of(st.sampled_from(UNSURE_TOKENS), st.text(max_size=30))), "unsure")


@dataclass(frozen=True)
class TableEdit:
    """Edits to a data editor as Streamlit records them: positions refer to the table's rows."""

    edited: dict[int, Cell]
    added: tuple[Cell, ...]
    deleted: tuple[int, ...]

    def state(self, column: str) -> dict[str, object]:
        return {
            "edited_rows": {i: {column: c.raw} for i, c in self.edited.items()},
            "added_rows": [{column: c.raw} for c in self.added],
            "deleted_rows": list(self.deleted),
        }

    def apply(self, rows: list[Cell]) -> list[Cell]:
        """Streamlit's order: edit cells, drop deleted rows, append added rows."""
        out = [self.edited.get(i, c) for i, c in enumerate(rows)]
        out = [c for i, c in enumerate(out) if i not in set(self.deleted)]
        return out + list(self.added)


def table_edits(n_rows: int) -> st.SearchStrategy[TableEdit]:
    rows = st.integers(0, max(n_rows - 1, 0))
    return st.builds(
        TableEdit,
        edited=st.dictionaries(rows, cells(), max_size=4) if n_rows else st.just({}),
        added=st.lists(cells(), max_size=4).map(tuple),
        deleted=(
            st.lists(rows, max_size=3, unique=True).map(lambda r: tuple(sorted(r))) if n_rows else st.just(())
        ),
    )


def expect_from_cells(rows: list[Cell]) -> Expect:
    """What a table of these cells must read as."""
    if not rows:
        return Reject("empty table")
    if len(rows) > MAX_VALUES:
        return Reject("too many rows")
    out: list[float] = []
    for c in rows:
        if c.expect == "bad":
            return Reject(f"cell {c.raw!r}")
        if c.expect == "unsure":
            return Either("an unsure cell")
        assert isinstance(c.expect, float)
        if abs(c.expect) > MAX_ABS:
            return Reject("|x| above 1e150")
        if c.expect != 0 and abs(c.expect) < MIN_ABS:
            return Reject("subnormal")
        out.append(c.expect)
    return Accept(tuple(out))


# --- per-feature γ, β table (Scale & shift page, text cells like the sidebar's table) ---------------


@dataclass(frozen=True)
class AffineEdit:
    column: str  # "γ" or "β"
    edited: dict[int, Cell]

    def state(self) -> dict[str, object]:
        return {
            "edited_rows": {i: {self.column: c.raw} for i, c in self.edited.items()},
            "added_rows": [],
            "deleted_rows": [],
        }


def affine_edits(d: int) -> st.SearchStrategy[AffineEdit]:
    return st.builds(
        AffineEdit,
        column=st.sampled_from(["γ", "β"]),
        edited=st.dictionaries(st.integers(0, d - 1), cells(), min_size=1, max_size=3),
    )


# --- uploads -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes
    expect: Expect = field(compare=False)
    user_strings: tuple[str, ...] = field(default=(), compare=False)

    def __repr__(self) -> str:
        return f"Upload({self.name!r}, {_short(self.data)}, {self.expect!r})"


NAMES = st.one_of(
    st.sampled_from(["vector", "x", "data", "activations_layer_3", "Vektor_ä", "向量", "my file (2)"]),
    st.sampled_from(
        ["**bold**", "_under_", "[link](javascript:alert(1))", "a`b", "<b>x</b>", "$x$", ":red[x]"]
    ),
    st.text(
        alphabet=st.characters(exclude_categories=("Cs", "Cc"), exclude_characters="/\\"),
        min_size=1,
        max_size=20,
    ),
    st.just("n" * 300),
)


def _name(draw: st.DrawFn, ext: str) -> str:
    return draw(NAMES) + draw(st.sampled_from([ext, ext.upper()]))


HEADER_NAMES = ["x", "value", "feature_1", "v", "activation"]


@st.composite
def csv_valid(draw: st.DrawFn) -> Upload:
    vec = draw(vectors(max_size=30))
    as_row = len(vec) > 1 and draw(st.booleans())
    sep = draw(st.sampled_from([",", ";", "\t", " "] if as_row else [","]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    pad = draw(st.sampled_from(["", " "])) if sep != " " else ""
    texts = spell_all(draw, vec)
    trailing = draw(st.booleans()) and sep != " "
    end = sep if trailing else ""
    if as_row:
        lines = [(sep + pad).join(texts) + end]
        if draw(st.booleans()):
            lines.insert(
                0, sep.join(f"{draw(st.sampled_from(HEADER_NAMES))}{i}" for i in range(len(vec))) + end
            )
    else:
        lines = [t + end for t in texts]
        if draw(st.booleans()):
            lines.insert(0, draw(st.sampled_from(HEADER_NAMES)) + end)
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    data = text.encode("utf-8")
    if draw(st.integers(0, 4)) == 0:
        data = b"\xef\xbb\xbf" + data  # a byte-order mark (Excel)
    return Upload(_name(draw, draw(st.sampled_from([".csv", ".txt"]))), data, Accept(tuple(vec)))


@st.composite
def csv_invalid(draw: st.DrawFn) -> Upload:
    kind = draw(
        st.sampled_from(
            ["bad cell", "empty cell", "2-D", "empty", "not utf-8", "only header", "nan", "too many"]
        )
    )
    ext = draw(st.sampled_from([".csv", ".txt"]))
    vec = spell_all(draw, draw(vectors(min_size=2, max_size=8)))
    strings: tuple[str, ...] = ()
    if kind == "bad cell":
        bad = draw(bad_tokens.filter(lambda t: not any(c in t for c in ",;\t\n\r\"' ")))
        vec.insert(draw(st.integers(1, len(vec))), bad)  # a first row of names would be a header
        text = "\n".join(vec)
        strings = (bad,)
    elif kind == "empty cell":
        vec.insert(draw(st.integers(1, len(vec) - 1)), "")  # inside: a trailing separator is allowed
        text = ",".join(vec)
    elif kind == "2-D":
        text = "\n".join(",".join(vec) for _ in range(draw(st.integers(2, 4))))
    elif kind == "empty":
        text = draw(st.sampled_from(["", "\n", "   \n\n", "\ufeff"]))
    elif kind == "not utf-8":
        return Upload(
            _name(draw, ext), b"\xff\xfe" + "1,2,3".encode("utf-16-le") + b"\x80", Reject("not UTF-8")
        )
    elif kind == "only header":
        text = draw(st.sampled_from(HEADER_NAMES))
    elif kind == "nan":
        vec.insert(draw(st.integers(0, len(vec))), draw(st.sampled_from(["nan", "NaN", "inf", "-inf"])))
        text = "\n".join(vec)
    else:
        text = ",".join(["1"] * draw(st.integers(MAX_VALUES + 1, MAX_VALUES + 20)))
    return Upload(_name(draw, ext), text.encode("utf-8"), Reject(kind), strings)


def _npy(arr: np.ndarray, *, allow_pickle: bool = False, fortran: bool = False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asfortranarray(arr) if fortran else arr, allow_pickle=allow_pickle)
    return buf.getvalue()


NPY_DTYPES = ["<f8", ">f8", "<f4", "<f2", "<i1", "<i2", "<i4", "<i8", "<u1", "<u8", "?"]


@st.composite
def npy_valid(draw: st.DrawFn) -> Upload:
    dtype = np.dtype(draw(st.sampled_from(NPY_DTYPES)))
    vec = np.asarray(draw(vectors(max_size=30)), dtype=np.float64)
    if dtype.kind == "f":
        finfo = np.finfo(dtype)
        vec = np.clip(vec, -float(finfo.max) / 2, float(finfo.max) / 2).astype(dtype)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        vec = np.clip(np.round(vec), max(float(info.min), -(2.0**52)), min(float(info.max), 2.0**52)).astype(
            dtype
        )
    else:
        vec = vec > 0
    shape = draw(st.sampled_from([(vec.size,), (1, vec.size), (vec.size, 1)]))
    arr = vec.reshape(shape)
    data = _npy(arr, fortran=len(shape) == 2 and draw(st.booleans()))
    expected = tuple(float(v) for v in vec.astype(np.float64))
    return Upload(_name(draw, ".npy"), data, Accept(expected))


@st.composite
def npy_invalid(draw: st.DrawFn) -> Upload:
    kind = draw(
        st.sampled_from(
            [
                "truncated",
                "no header",
                "pickle",
                "2-D",
                "0-d",
                "empty",
                "nan",
                "complex",
                "text",
                "struct",
                "huge shape",
                "npz",
                "datetime",
                "csv as npy",
                "too many",
            ]
        )
    )
    ok = np.asarray(draw(vectors(min_size=2, max_size=8)))
    if kind == "truncated":
        full = _npy(ok)
        data = full[: draw(st.integers(0, len(full) - 1))]
    elif kind == "no header":
        data = b"\x93NUMPX" + draw(st.binary(max_size=64))
    elif kind == "pickle":
        data = _npy(np.array([1.0, "a", None], dtype=object), allow_pickle=True)
    elif kind == "2-D":
        data = _npy(np.ones((draw(st.integers(2, 5)), draw(st.integers(2, 5)))))
    elif kind == "0-d":
        data = _npy(np.array(3.5))
    elif kind == "empty":
        data = _npy(np.zeros(draw(st.sampled_from([(0,), (0, 3), (1, 0)]))))
    elif kind == "nan":
        bad = ok.copy()
        bad[draw(st.integers(0, bad.size - 1))] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        data = _npy(bad)
    elif kind == "complex":
        data = _npy(ok.astype(complex))
    elif kind == "text":
        data = _npy(np.array(["1", "2"]))
    elif kind == "struct":
        data = _npy(np.zeros(3, dtype=[("a", "<f8"), ("b", "<i4")]))
    elif kind == "huge shape":
        size = draw(st.sampled_from([10**9, 2**62, 5000]))
        header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': ({size},), }}"
        header = header.ljust(118) + "\n"
        data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\x00" * 64
    elif kind == "npz":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("x.npy", _npy(ok))
        data = buf.getvalue()
    elif kind == "datetime":
        data = _npy(np.array(["2024-01-01"], dtype="datetime64[D]"))
    elif kind == "csv as npy":
        data = b"1,2,3\n"
    else:
        data = _npy(np.ones(MAX_VALUES + draw(st.integers(1, 10))))
    return Upload(_name(draw, ".npy"), data, Reject(kind))


@st.composite
def upload_unsure(draw: st.DrawFn) -> Upload:
    ext = draw(st.sampled_from([".csv", ".txt", ".npy"]))
    if ext == ".npy" and draw(st.booleans()):
        full = _npy(np.asarray(draw(vectors(max_size=6))))
        data = bytearray(full)
        for _ in range(draw(st.integers(1, 4))):  # flip bytes, header included
            i = draw(st.integers(0, len(data) - 1))
            data[i] = draw(st.integers(0, 255))
        blob = bytes(data)
    elif draw(st.booleans()):
        blob = draw(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=200)).encode("utf-8")
    else:
        blob = draw(st.binary(max_size=200))
    return Upload(_name(draw, ext), blob, Either("free bytes"))


upload_cases = st.one_of(csv_valid(), npy_valid(), csv_invalid(), npy_invalid(), upload_unsure())


class CoreCrashed(Exception):
    """The core's reader raised something other than InputError (the app shows that as a crash)."""


def core_reads_upload(name: str, data: bytes) -> np.ndarray | None:
    """What the core's reader makes of an upload; ``None`` when it refuses it (InputError)."""
    try:
        return ln.read_uploaded_vector(name, data)
    except ln.InputError:
        return None
    except Exception as exc:
        raise CoreCrashed(f"{type(exc).__name__}: {exc}") from exc


# --- link (URL) parameters ---------------------------------------------------------------------------

D_CHOICES = [
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    16,
    24,
    32,
    48,
    64,
    96,
    128,
    192,
    256,
    384,
    512,
    768,
    1024,
    2048,
    3072,
    4096,
]
EPS_CHOICES = [float(f"{m}e{k}") for k in range(-12, 0) for m in (1, 2, 5)] + [1.0]
LINK_KEYS = ("src", "preset", "d", "seed", "eps", "gamma", "beta")


@dataclass(frozen=True)
class LinkParam:
    """One ``key=value`` (or a repeated key) of a shared link.

    ``kind``: "valid" (the lab must use it), "invalid" (it must not, and must say so),
    "unsure" (used or reported, either is fine), "unknown" (a key the lab does not have).
    """

    key: str
    raw: str | tuple[str, ...]
    kind: str

    def __repr__(self) -> str:
        return f"{self.key}={_short(self.raw, 60)}[{self.kind}]"


def _valid_raw(key: str) -> st.SearchStrategy[str]:
    sources = ["Preset", "Type numbers", "Edit a table", "Upload a file", "Real token (MiniLM)"]
    if key == "src":
        return st.sampled_from(sources)
    if key == "preset":
        return st.sampled_from(list(ln.PRESETS))
    if key == "d":
        return st.sampled_from(D_CHOICES).map(str)
    if key == "seed":
        return st.integers(0, 9999).map(str)
    if key == "eps":
        return st.sampled_from(EPS_CHOICES).map(lambda v: f"{v:.0e}")
    return st.integers(-60, 60).map(lambda k: repr(round(k * 0.05, 2)))  # gamma, beta on the 0.05 grid


def _unsure_raw(key: str) -> st.SearchStrategy[str]:
    if key in ("src", "preset"):
        return st.sampled_from(["preset", "PRESET", " Preset", "constant ", "Constant", "standard%20normal"])
    if key == "d":
        return st.sampled_from(["16.0", "016", " 16", "１６", "8e0", "+8"])
    if key == "seed":
        return st.sampled_from(["12.0", "1e3", "+5", " 7", "007", "1.5", "９"])
    if key == "eps":
        return st.sampled_from(["0.001", "1e-3", "1e-05 ", "1E-05", "0.00001", "1e-5", "2e-05", "1.0"])
    return st.sampled_from(["0.33", "1e-1", " 1", "1.", ".5", "-0", "2.999999", "−1"])


def _invalid_raw(key: str) -> st.SearchStrategy[str]:
    common = ["", "abc", "nan", "inf", "-inf", "None", "[1]", "x" * 5000, "`x`", "**b**", "<b>x</b>", "a`b"]
    per_key = {
        "src": ["Spreadsheet", "Upload", "0"],
        "preset": ["gaussian", "one-hot", "0"],
        "d": ["7", "0", "1", "-8", "5000", "8192", "1e9"],
        "seed": ["-1", "10000", "99999999999999999999", "1e10"],
        "eps": ["0", "-1e-05", "2", "3e-05", "1e-13", "1e-99"],
        "gamma": ["5", "-3.5", "3.05", "1e300", "-1e-400x"],
        "beta": ["5", "-3.5", "3.05", "1e300"],
    }
    return st.one_of(st.sampled_from(per_key[key]), st.sampled_from(common))


def _page_link_keys() -> list[str]:
    """The pages' own URL keys (``ui.keys.PAGE_KEYS``) and the sidebar's newer ones (typed text,
    γ/β mode, the real token's pickers): anything goes for them, they are checked when their page opens."""
    from ui.keys import ALL_PAGE_KEYS
    from ui.settings import TOKEN_KEYS, URL_KEYS

    return sorted((ALL_PAGE_KEYS | set(URL_KEYS) | set(TOKEN_KEYS)) - set(LINK_KEYS))


PAGE_LINK_KEYS = _page_link_keys()
KNOWN_KEYS = frozenset(LINK_KEYS) | frozenset(PAGE_LINK_KEYS)  # an "unknown" key must be none of these
page_link_values = st.one_of(
    st.integers(-5, 5000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "abc", "True", "1e-7", "−3", "0.5", "x" * 3000, "**b**", "[a](b)"]),
    st.text(max_size=12),
)


@st.composite
def link_params(draw: st.DrawFn) -> tuple[LinkParam, ...]:
    """A whole link: some of the lab's keys with valid/unsure/invalid values, repeats, unknown keys,
    and the pages' own address-bound keys (anything goes: they are checked when their page opens)."""
    out: list[LinkParam] = []
    if PAGE_LINK_KEYS:
        for key in draw(st.lists(st.sampled_from(PAGE_LINK_KEYS), unique=True, max_size=2)):
            out.append(LinkParam(key, draw(page_link_values.filter(lambda v: "\x00" not in v)), "page"))
    for key in draw(st.lists(st.sampled_from(LINK_KEYS), unique=True, max_size=5)):
        kind = draw(st.sampled_from(["valid", "valid", "unsure", "invalid", "repeated"]))
        if kind == "repeated":
            raws = tuple(
                draw(st.lists(st.one_of(_valid_raw(key), _invalid_raw(key)), min_size=2, max_size=3))
            )
            out.append(LinkParam(key, raws, "repeated"))
        else:
            strat = {"valid": _valid_raw, "unsure": _unsure_raw, "invalid": _invalid_raw}[kind](key)
            out.append(LinkParam(key, draw(strat), kind))
    for key in draw(
        st.lists(
            st.one_of(
                st.sampled_from(["seeed", "gama", "D", "Src", "page", "x", "vector", "ε", "gamma ", "eps[]"]),
                st.text(
                    alphabet=st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=30
                ).filter(lambda k: k.strip() and k not in KNOWN_KEYS and not k.startswith("embed")),
            ),
            unique=True,
            max_size=2,
        )
    ):
        if key not in KNOWN_KEYS:  # Hypothesis also draws the code's own constants ("tf_param")
            out.append(
                LinkParam(key, draw(st.text(max_size=10).filter(lambda v: "\x00" not in v)), "unknown")
            )
    return tuple(out)
