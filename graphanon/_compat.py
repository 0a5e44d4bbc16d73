"""Deprecation shims: paper variants that moved out of the secure mechanisms.

The secure mechanisms are straight paths (validate → query → noise → post-process → Release
record). The variants that reproduce a paper as written — the thesis's observed domain, its
Lemma 5 calibration, SER as a release projection, the chapter-8 per-entry calibrations, the
RPS seed's Cauchy counts — live in :mod:`graphanon.reproduce`. Code written against the old
keyword arguments keeps working: :func:`paper_variants` wraps a secure function so that such a
keyword, given with a non-default value, warns (``DeprecationWarning``) and calls the
reproduction instead; given with its default value it is accepted and ignored.

Every shim names the release that removes it (``removed_in``, "the next minor" after the one
that added it; all of these came with 0.2.0) in its warning; the table in
``docs/architecture.md`` lists them and ``tests/test_layout.py`` fails once the package
version reaches one, so that none outlives its date.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["REMOVED_IN", "moved_module", "moved_names", "paper_variants", "renamed_keywords",
           "variant_for"]

#: The release that removes the shims added in 0.2.0 (issue 19): the next minor.
REMOVED_IN = "0.3.0"

F = TypeVar("F", bound=Callable[..., Any])


def _resolve(target: str) -> Callable[..., Any]:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def paper_variants(target: str, removed_in: str = REMOVED_IN,
                   **defaults: Any) -> Callable[[F], F]:
    """Route the keyword arguments ``defaults`` (name → default value) to ``target``, until
    the release ``removed_in``.

    ``target`` (``"module:function"``) takes every argument of the wrapped function plus the
    routed keywords. The wrapper's signature is the secure function's own: it names only
    secure parameters (issue 37); the routed keywords are in ``__paper_variants__``, where
    the job runner finds them for its deprecated keys (:mod:`graphanon.jobs.adapter`).
    """

    def deco(func: F) -> F:
        sig = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            moved = {k: kwargs.pop(k) for k in list(kwargs) if k in defaults}
            variant = {k: v for k, v in moved.items() if v != defaults[k]}
            if not variant:
                return func(*args, **kwargs)
            impl = _resolve(target)
            shown = ", ".join(f"{k}={v!r}" for k, v in variant.items())
            warnings.warn(
                f"{func.__name__}({shown}) is a paper reproduction, not the secure mechanism; "
                f"it moved to {impl.__module__}.{impl.__name__} (called now; the keyword is "
                f"removed in {removed_in}).",
                DeprecationWarning, stacklevel=2)
            return impl(*args, **kwargs, **moved)

        wrapper.__signature__ = sig  # type: ignore[attr-defined]
        wrapper.__paper_variants__ = (target, dict(defaults))  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


def renamed_keywords(renamed: dict[str, str], *, removed_in: str) -> Callable[[F], F]:
    """Accept the old keyword names ``renamed`` (``{old: new}``) of a function until the
    release ``removed_in``: an old name warns (``DeprecationWarning``) and is passed as the
    new one; both at once are refused. The signature is the function's own (new names)."""

    def deco(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renamed.items():
                if old in kwargs:
                    if new in kwargs:
                        from .errors import InvalidParameterError

                        raise InvalidParameterError(
                            f"The {old!r} and {new!r} parameters of {func.__name__} are one "
                            f"setting ({old!r} is its old name); give {new!r} only.")
                    kwargs[new] = kwargs.pop(old)
                    warnings.warn(
                        f"{func.__name__}({old}=...) is now {func.__name__}({new}=...) (the "
                        f"old keyword is removed in {removed_in}).", DeprecationWarning,
                        stacklevel=2)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return deco


def variant_for(func: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[..., Any]:
    """The function a call of ``func(**kwargs)`` should reach without a deprecation detour:
    the reproduction when ``func`` is a :func:`paper_variants` wrapper and ``kwargs`` give
    one of its routed keywords a non-default value (the CLI options and job keys that always
    selected a paper variant keep doing so), else ``func`` itself."""
    routed = getattr(func, "__paper_variants__", None)
    if routed is None:
        return func
    target, defaults = routed
    if any(k in kwargs and kwargs[k] != v for k, v in defaults.items()):
        return _resolve(target)
    return func


def moved_names(module: str, moved: dict[str, str], *, removed_in: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for names that moved (``name -> "module:attribute"``): the
    old import keeps working and warns (``DeprecationWarning``) until ``removed_in``."""

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, _, attr = moved[name].partition(":")
        warnings.warn(f"{module}.{name} moved to {new_module}.{attr} (the old name is removed "
                      f"in {removed_in}).", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new_module), attr)

    return __getattr__


def moved_module(module: str, new_module: str, *, removed_in: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for a module that moved as a whole: every name of
    ``new_module`` stays reachable under ``module`` and warns (``DeprecationWarning``) until
    ``removed_in``."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target = importlib.import_module(new_module)
        if not hasattr(target, name):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module} moved to {new_module}; import {name} from there (the old "
                      f"path is removed in {removed_in}).", DeprecationWarning, stacklevel=2)
        return getattr(target, name)

    return __getattr__
