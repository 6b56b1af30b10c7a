"""Input validation shared by the core modules (private).

Every public function converts its array arguments through :func:`as_float64`
and its ``eps`` through :func:`check_eps`, so all of them reject the same bad
inputs with the same messages.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]


def as_float64(x: ArrayLike, name: str = "x") -> F64:
    """Return ``x`` as a float64 array (a copy only when a conversion is needed).

    Raises ``ValueError`` for strings, objects and complex numbers.
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "cUS":
        kind = "complex numbers" if arr.dtype.kind == "c" else "text"
        raise ValueError(f"{name} must hold real numbers, got {kind} (dtype {arr.dtype})")
    if arr.dtype.kind not in "biuf":
        # ml_dtypes' bfloat16/float8 report kind 'V'; accept anything float() can read.
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold real numbers, got an array of dtype {arr.dtype}") from None
    return arr.astype(np.float64, copy=False)


def check_eps(eps: float) -> float:
    """Return ``eps`` as a float after checking it is finite and not negative."""
    value = float(eps)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return value


def normalize_axes(axis: int | Sequence[int], ndim: int, *, trailing: bool) -> tuple[int, ...]:
    """Turn ``axis`` into a sorted tuple of non-negative axes of an ``ndim`` array.

    With ``trailing=True`` the axes must be the last ones (PyTorch's
    ``normalized_shape`` rule): ``-1``, ``(-2, -1)``, ... .
    """
    raw = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if not raw:
        raise ValueError("axis must name at least one axis")
    axes: list[int] = []
    for a in raw:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for an array with {ndim} dimension(s)")
        axes.append(a % ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"axis {raw} names the same axis twice")
    result = tuple(sorted(axes))
    if trailing and result != tuple(range(ndim - len(result), ndim)):
        raise ValueError(
            f"axis {raw} must be the trailing axes (like PyTorch's normalized_shape), e.g. -1 or (-2, -1)"
        )
    return result


def check_param(p: ArrayLike | None, name: str, shape: tuple[int, ...], what: str, fill: float) -> F64:
    """Return a parameter (gamma, beta, running stats) as float64 of exactly ``shape``.

    ``None`` gives an array filled with ``fill`` (1 for gamma, 0 for beta).
    A scalar is broadcast. Any other shape raises ``ValueError`` naming both shapes.
    """
    if p is None:
        return np.full(shape, fill, dtype=np.float64)
    arr = as_float64(p, name)
    if arr.ndim == 0:
        return np.full(shape, float(arr), dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, expected {shape} to match {what}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def check_affine(
    gamma: ArrayLike | None, beta: ArrayLike | None, shape: tuple[int, ...], what: str
) -> tuple[F64, F64]:
    """The learned scale and shift as float64 of ``shape`` (see :func:`check_param`): ``gamma``
    defaults to ones and ``beta`` to zeros, as in PyTorch's ``weight`` and ``bias``."""
    return check_param(gamma, "gamma", shape, what, 1.0), check_param(beta, "beta", shape, what, 0.0)


CHANNEL_AXIS = "the channel axis x.shape[1]"  # what per-channel parameters (shape (C,)) must match


FLOAT64_MAX = float(np.finfo(np.float64).max)


class ResultRangeError(ValueError):
    """A result of finite input does not fit in a float64 (its size would pass about 1.8e308).

    The core refuses instead of returning ``inf`` or ``NaN`` that nobody asked for; the
    message names the function, the result, the input's largest size and the limit.
    Scaling the input down (or choosing smaller ``gamma``, ``eps``, ``dy``) gives a result
    that fits. Source: this project.
    """


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _non_finite(value: object, name: str, depth: int = 0, allow: tuple[str, ...] = ()) -> str | None:
    """The name of the first part of ``value`` that is a float and not finite, else None.

    Fields named in ``allow`` are skipped (a documented ``inf``, such as "no limit").
    """
    if name.rpartition(".")[2] in allow:
        return None
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and not np.isfinite(value).all():
            return name
        return None
    if isinstance(value, (float, np.floating)):
        return None if math.isfinite(value) else name
    if depth > 2:
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            bad = _non_finite(getattr(value, f.name), f"{name}.{f.name}", depth + 1, allow)
            if bad:
                return bad
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            bad = _non_finite(v, f"{name}[{i}]", depth + 1, allow)
            if bad:
                return bad
    elif isinstance(value, dict):
        for k, v in value.items():
            bad = _non_finite(v, f"{name}[{k!r}]", depth + 1, allow)
            if bad:
                return bad
    return None


def _largest(value: object) -> float | None:
    """The largest ``|value|`` of a numeric argument, or None for anything else."""
    if isinstance(value, (bool, str, bytes)) or value is None:
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        return None
    with np.errstate(over="ignore"):
        return float(np.max(np.abs(arr.astype(np.float64))))


_RANGE_ERROR_DOC = """\
ResultRangeError
    A result does not fit in a float64 (above 1.8e308) for this finite input; the
    message names the result and the input's largest values."""


def _is_heading(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` is a numpydoc section title (a word underlined with dashes)."""
    return bool(lines[i]) and i + 1 < len(lines) and lines[i + 1] == "-" * len(lines[i])


def _heading(lines: list[str], name: str) -> int | None:
    """Where the section titled ``name`` starts, or None."""
    return next((i for i, line in enumerate(lines) if line == name and _is_heading(lines, i)), None)


def _document_range_error(doc: str | None) -> str | None:
    """``doc`` (cleaned as :func:`inspect.getdoc` does) with :data:`_RANGE_ERROR_DOC` ending its
    "Raises" section; without one, a "Raises" section is made before "Notes" (or at the end)."""
    if doc is None:
        return None
    lines = inspect.cleandoc(doc).splitlines()
    entry = _RANGE_ERROR_DOC.splitlines()
    raises = _heading(lines, "Raises")
    if raises is not None:
        end = next((i for i in range(raises + 2, len(lines)) if _is_heading(lines, i)), len(lines))
        while not lines[end - 1]:  # before the blank line(s) that end the section
            end -= 1
        lines[end:end] = entry
    elif (notes := _heading(lines, "Notes")) is not None:
        lines[notes:notes] = ["Raises", "------", *entry, ""]
    else:
        lines += ["", "Raises", "------", *entry]
    return "\n".join(lines)


def finite_results(
    *names: str, allow: tuple[str, ...] = ()
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Make a public function raise :class:`ResultRangeError` rather than return inf or NaN.

    The function runs with NumPy's overflow and invalid-value warnings off, then every float
    in its result (arrays, floats, and the fields of a tuple, dataclass or dict) is checked.
    ``names`` name the parts of a tuple result, for the message; ``allow`` names result fields
    whose ``inf`` the function documents (a meaning, not an overflow).
    The wrapper's docstring documents the error it raises: a ``ResultRangeError`` entry ends
    its "Raises" section (see :func:`_document_range_error`), so no function spells it out.
    """

    def wrap(func: Callable[_P, _R]) -> Callable[_P, _R]:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def checked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                result = func(*args, **kwargs)
            if isinstance(result, tuple) and len(names) == len(result):
                bad = next(
                    (b for n, v in zip(names, result, strict=True) if (b := _non_finite(v, n, 0, allow))),
                    None,
                )
            else:
                bad = _non_finite(result, "the result", 0, allow)
            if bad is None:
                return result
            bound = signature.bind(*args, **kwargs)
            sizes = [(k, _largest(v)) for k, v in bound.arguments.items()]
            inputs = ", ".join(f"largest |{k}| = {m:.4g}" for k, m in sizes if m is not None)
            raise ResultRangeError(
                f"{func.__name__}: {bad} does not fit in a float64 (the largest is {FLOAT64_MAX:.4g}) "
                f"for this input ({inputs or 'see the arguments'}); scale the input down"
            )

        checked.__doc__ = _document_range_error(func.__doc__)
        return checked

    return wrap
