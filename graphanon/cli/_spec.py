"""Click options generated from a mechanism's :class:`~graphanon.params.Spec` (issue 37):
the option's flag, type, range, choices, default and help are the spec's, so the command,
the job step and the docs cannot drift apart (``tests/test_param_specs.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from ..params import Param, Spec
from ._params import EPSILON, _Float

__all__ = ["option_for", "options_from", "spec_values"]


class _Int(click.ParamType):  # type: ignore[type-arg]
    """An int option in ``[low, high]``, refused as the arguments are read with the one
    message format (``The '--k' option must be an int in [2, ...]. Got 1 instead.``)."""

    name = "integer"

    def __init__(self, low: int | None, high: int | None, words: tuple[str, ...] = ()) -> None:
        self.min, self.max, self.words = low, high, words
        if words:
            self.name = "INT|" + "|".join(words)

    def convert(self, value: Any, param: Any, ctx: Any) -> int | str:
        if isinstance(value, str) and value in self.words:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            x = value
        else:
            try:
                x = int(str(value).strip())
            except ValueError:
                also = "".join(f" or {w!r}" for w in self.words)
                self.fail(f"{value!r} is not an integer{also}.", param, ctx)
        from .._validation import check_int
        from ..errors import InvalidParameterError

        try:
            return check_int(x, "x", "<cli>", low=self.min, high=self.max)
        except InvalidParameterError as exc:
            opt = param.opts[0] if param is not None and param.opts else "the"
            raise InvalidParameterError(str(exc).replace(
                "The 'x' parameter of <cli>", f"The {opt!r} option")) from None


class _Words(click.ParamType):  # type: ignore[type-arg]
    """A number option that also takes some words (``--mu max``)."""

    def __init__(self, inner: Any, words: tuple[str, ...]) -> None:
        self.inner, self.words = inner, words
        self.name = f"{inner.name}|" + "|".join(words)
        self.bounds = getattr(inner, "bounds", None)

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and value in self.words:
            return value
        return self.inner.convert(value, param, ctx)


def _type(p: Param) -> Any:
    if p.words and p.kind != "int":
        return _Words(_type(Param(p.name, p.kind, p.help, low=p.low, high=p.high,
                                  closed=p.closed)), p.words)
    if p.kind == "epsilon":
        return EPSILON
    if p.kind == "choice":
        return click.Choice(list(p.choices))
    if p.kind == "int":
        return _Int(None if p.low is None else int(p.low),
                    None if p.high is None else int(p.high), p.words)
    if p.low is None and p.high is None:
        return _Float()
    return _Float((float("-inf") if p.low is None else p.low,
                   float("inf") if p.high is None else p.high))


def option_help(p: Param, spec: Spec) -> str:
    """The option's help: the spec's, with the setting it needs and a default that click
    cannot show (an option that applies to one setting defaults to ``None`` on the CLI, so
    that giving it under another setting can be refused)."""
    text = p.help
    if p.conditions:
        needs = ", ".join(f"{spec[o].flag} {'|'.join(v) if isinstance(v, tuple) else v}"
                          for o, v in p.conditions)
        text = f"Only with {needs}. {text}"
    if p.only is not None and not p.required and p.default is not None:
        text += f" Default {p.default}."
    return text


def option_for(p: Param, spec: Spec) -> Callable[[Any], Any]:
    """The click option of one parameter."""
    dest = p.name
    if p.kind == "bool":
        flag = p.flag
        return click.option(f"{flag}/--no-{flag[2:]}", dest,
                            default=None if p.only is not None else p.default,
                            help=option_help(p, spec))
    kwargs: dict[str, Any] = {"type": _type(p), "help": option_help(p, spec)}
    if p.required:
        kwargs["required"] = True
    elif p.only is not None or p.default is None:
        kwargs["default"] = None
    else:
        kwargs.update(default=p.default, show_default=True)
    return click.option(p.flag, dest, **kwargs)


def options_from(spec: Spec, *, skip: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """Decorate a click command with one option per CLI parameter of ``spec`` (in the spec's
    order), except ``skip`` (declared by hand: say why beside the command)."""
    params = [p for p in spec.cli_params() if p.name not in skip]

    def decorate(f: Any) -> Any:
        for p in reversed(params):
            f = option_for(p, spec)(f)
        return f

    return decorate


def spec_values(spec: Spec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The function's keyword arguments from the parsed options of ``spec``: a chosen option
    that does not apply to the chosen setting is refused (naming both options), and an
    option left out takes the spec's default."""
    chosen = {n for n in spec.names if values.get(n) is not None and spec[n].flag}
    out: dict[str, Any] = {}
    for p in spec.params:
        if not p.flag:
            continue
        v = values.get(p.name)
        out[p.name] = p.default if v is None and not p.required else v
    spec.check_applies(out, chosen, style="cli")
    return out
