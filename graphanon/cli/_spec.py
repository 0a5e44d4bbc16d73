"""Click options generated from a mechanism's :class:`~graphanon.params.Spec` (issue 37):
the option's flag, type, range, choices, default and help are the spec's, so the command,
the job step and the docs cannot drift apart (``tests/test_param_specs.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from ..errors import InvalidParameterError
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


_ALIASES = "graphanon.option_aliases"


def _alias_option(p: Param, alias: str) -> Callable[[Any], Any]:
    """A hidden option under an old name: its value is kept for :func:`spec_values`, which
    warns and uses it as the new option's."""
    flag = "--" + alias.replace("_", "-")

    def remember(ctx: click.Context, param: Any, value: Any) -> Any:
        if value is not None and value is not False:
            ctx.meta.setdefault(_ALIASES, {})[p.name] = (flag, value)
        return value

    kwargs: dict[str, Any] = {"type": _type(p), "default": None, "hidden": True,
                              "expose_value": False, "callback": remember}
    return click.option(flag, f"_alias_{alias}", **kwargs)


def option_for(p: Param, spec: Spec) -> Callable[[Any], Any]:
    """The click option of one parameter (and hidden ones for its old names)."""
    if p.aliases:
        main = _option_for(p, spec)
        extra = [_alias_option(p, a) for a in p.aliases]

        def decorate(f: Any) -> Any:
            for d in (*extra, main):
                f = d(f)
            return f

        return decorate
    return _option_for(p, spec)


def _option_for(p: Param, spec: Spec) -> Callable[[Any], Any]:
    dest = p.name
    if p.kind == "bool":
        flag = p.flag
        return click.option(f"{flag}/--no-{flag[2:]}", dest,
                            default=None if p.only is not None else p.default,
                            help=option_help(p, spec))
    return click.option(p.flag, dest, type=_type(p), **option_settings(p, spec))


def option_settings(p: Param, spec: Spec) -> dict[str, Any]:
    """The click option's help, default and whether it is required (what
    ``tests/test_param_specs.py`` compares the commands against)."""
    kwargs: dict[str, Any] = {"help": option_help(p, spec)}
    if p.aliases:  # an old name may give it: the default is filled in by spec_values
        kwargs["default"] = None
        if p.required:
            kwargs["help"] += "  [required]"
        elif p.default is not None:
            kwargs["help"] += f"  [default: {p.default}]"
    elif p.required:
        kwargs["required"] = True
    elif p.only is not None or p.default is None:
        kwargs["default"] = None
    else:
        kwargs.update(default=p.default, show_default=True)
    return kwargs


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
    values = dict(values)
    ctx = click.get_current_context(silent=True)
    for name, (flag, value) in (ctx.meta.get(_ALIASES, {}) if ctx is not None else {}).items():
        p = spec[name]
        if values.get(name) is not None:
            raise InvalidParameterError(
                f"The options {flag!r} and {p.flag!r} are one setting ({flag!r} is its old "
                f"name); give {p.flag!r} only.")
        values[name] = value
        click.echo(f"graphanon: warning: {flag} is now {p.flag} (the old option is removed "
                   "in 0.3.0).", err=True)
    for p in spec.params:
        if p.aliases and p.required and values.get(p.name) is None:
            choose = f" Choose from: {', '.join(p.choices)}." if p.choices else ""
            raise click.UsageError(f"Missing option {p.flag!r}.{choose}")
    chosen = {n for n in spec.names if values.get(n) is not None and spec[n].flag}
    out: dict[str, Any] = {}
    for p in spec.params:
        if not p.flag:
            continue
        v = values.get(p.name)
        out[p.name] = p.default if v is None and not p.required else v
    spec.check_applies(out, chosen, style="cli")
    return out
