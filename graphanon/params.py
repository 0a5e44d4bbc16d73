"""A mechanism's parameters, declared once (issue 37).

A :class:`Spec` lists the public parameters of one library function — name, type, range,
default, help, whether the value is public, the neighbouring relation or other setting it
applies to — beside the function, in its family module. Everything else is generated from
it:

- the function's own validation (:meth:`Spec.validate`, one message format:
  :mod:`graphanon._validation`);
- the click options of its command (:func:`graphanon.cli._spec.options_from`);
- the keys a job step accepts and requires (:func:`graphanon.jobs.mechanism_step` with the
  registry row's ``spec``);
- the parameter table of its page in ``docs/`` (between ``<!-- params:NAME -->`` markers,
  written by ``python scripts/param_docs.py``).

``tests/test_param_specs.py`` fails when the function's signature, its command, its job step
or its docs disagree with the spec. The model is scikit-learn's ``_param_validation``
(constraints declared once, read by the tests) with OpenDP's habit of naming what each value
means for privacy.

Plain data only: importing this module imports no numpy (the registry names specs as
strings, and ``graphanon --help`` stays cheap).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._validation import (
    EPSILON_RANGE,
    _bound,
    check_choice,
    check_epsilon,
    check_float,
    check_int,
)
from .errors import InvalidParameterError

__all__ = ["REQUIRED", "Param", "Spec", "combine", "render_block"]


class _Required:
    """The default of a parameter without one."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

#: The kinds of value a parameter may hold.
KINDS = ("int", "float", "epsilon", "choice", "bool", "ints")


@dataclass(frozen=True)
class Param:
    """One parameter of a mechanism.

    Attributes
    ----------
    name
        The function's keyword (also the job key; the CLI option is ``--name-with-dashes``
        unless ``cli`` says otherwise).
    kind
        ``"int"``, ``"float"`` (in ``[low, high]``, ``closed`` as
        :func:`graphanon._validation.check_float`), ``"epsilon"`` (a privacy budget in
        :data:`~graphanon._validation.EPSILON_RANGE`), ``"choice"`` (one of ``choices``),
        ``"bool"`` or ``"ints"`` (a non-empty list of ints in ``[low, high]``; job and API
        only).
    words
        Words a number parameter also takes (``("auto",)``: a value chosen privately).
    help
        One or two sentences: what the value does (the CLI's help, the docs' table).
    default
        :data:`REQUIRED`, or the value used when the caller gives none (``None`` allowed).
    public
        Whether the value is public (every parameter of a spec is: the data is the only
        private input; ``False`` marks a value that must not be recorded, none so far).
    only
        ``(other, value)``, or a tuple of such pairs: the parameter applies only when each
        parameter ``other`` is ``value``; giving it otherwise is refused, naming both.
    cli
        The option's flag; ``""``: no CLI option (job and API only).
    aliases
        Old names of the parameter (keyword, option ``--old-name``, job key), accepted with
        a deprecation until 0.3.0 (issue 37: one name for the neighbouring relation).
    job
        Whether a job step may set it.
    """

    name: str
    kind: str
    help: str
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    choices: tuple[str, ...] = ()
    public: bool = True
    only: Any = None
    cli: str | None = None
    job: bool = True
    words: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: kind {self.kind!r} not in {KINDS}")
        if (self.kind == "choice") != bool(self.choices):
            raise ValueError(f"Param {self.name!r}: choices go with kind 'choice' only")
        if self.words and self.kind not in ("int", "float", "epsilon"):
            raise ValueError(f"Param {self.name!r}: words go with a number kind only")
        if self.kind == "ints" and self.cli is None:
            object.__setattr__(self, "cli", "")  # no CLI option holds a list
        if self.only is not None and isinstance(self.only[0], str):
            object.__setattr__(self, "only", (tuple(self.only),))

    @property
    def conditions(self) -> tuple[tuple[str, Any], ...]:
        """The settings the parameter applies to: ``((other, value), ...)``."""
        return () if self.only is None else tuple(self.only)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def flag(self) -> str:
        """The CLI option (``""`` when it has none)."""
        return "--" + self.name.replace("_", "-") if self.cli is None else self.cli

    def check(self, value: Any, owner: str) -> Any:
        """``value`` checked (and normalized) in the canonical message format; ``None``
        passes when the default is ``None``."""
        if value is None and self.default is None:
            return None
        if isinstance(value, str) and value in self.words:
            return value
        if self.kind == "ints":
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") or not list(
                    value):
                raise InvalidParameterError(
                    f"The {self.name!r} parameter of {owner} must be a non-empty list of "
                    f"{self.describe()[5:]}. Got {value!r} instead.")
            item = Param(self.name, "int", self.help, low=self.low, high=self.high)
            return tuple(item.check(v, owner) for v in value)
        if self.words and isinstance(value, str):
            raise InvalidParameterError(
                f"The {self.name!r} parameter of {owner} must be a"
                f"{'n int' if self.kind == 'int' else ' float'} or "
                f"{' or '.join(map(repr, self.words))}. Got {value!r} instead.")
        if self.kind == "epsilon":
            return check_epsilon(value, self.name, owner)
        if self.kind == "int":
            return check_int(value, self.name, owner,
                             low=None if self.low is None else int(self.low),
                             high=None if self.high is None else int(self.high))
        if self.kind == "float":
            return check_float(value, self.name, owner, low=self.low, high=self.high,
                               closed=self.closed)
        if self.kind == "choice":
            return check_choice(value, self.name, owner, self.choices)
        if not (isinstance(value, bool) or type(value).__name__ == "bool_"):  # numpy's too
            raise InvalidParameterError(
                f"The {self.name!r} parameter of {owner} must be a bool. Got {value!r} "
                "instead.")
        return bool(value)

    def describe(self) -> str:
        """The type and range in words (the docs' table)."""
        if self.kind == "epsilon":
            return (f"float in [{_bound(EPSILON_RANGE[0])}, {_bound(EPSILON_RANGE[1])}]"
                    + "".join(f" or `{w}`" for w in self.words))
        if self.kind == "choice":
            return " \\| ".join(f"`{c}`" for c in self.choices)
        if self.kind == "bool":
            return "bool"
        lo = "−∞" if self.low is None else _bound(self.low)
        hi = "∞" if self.high is None else _bound(self.high)
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        text = f"{self.kind} in {left}{lo}, {hi}{right}"
        return text + "".join(f" or `{w}`" for w in self.words)


@dataclass(frozen=True)
class Spec:
    """The parameters of one function (``owner``: its name, as in error messages)."""

    owner: str
    params: tuple[Param, ...]
    #: the page of ``docs/`` that holds its parameter table (between
    #: ``<!-- params:NAME -->`` and ``<!-- /params:NAME -->``, NAME the registry's name)
    doc: str = field(default="", compare=False)
    #: a spec made by :func:`combine`: the parameter choosing the function, and each
    #: function's own spec by that parameter's value
    on: str = field(default="", compare=False)
    parts: Mapping[str, Spec] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"Spec {self.owner!r}: a parameter is declared twice")
        for p in self.params:
            for other, _ in p.conditions:
                if other not in names:
                    raise ValueError(f"Spec {self.owner!r}: {p.name!r} depends on the unknown "
                                     f"parameter {other!r}")

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def aliases(self) -> dict[str, str]:
        """Old names: ``{old: new}`` (deprecated until 0.3.0)."""
        return {a: p.name for p in self.params for a in p.aliases}

    def rename(self, values: Mapping[str, Any], *, style: str = "api") -> dict[str, Any]:
        """``values`` with every old name replaced by its new one, warning
        (``DeprecationWarning``) for each; both names at once are refused."""
        import warnings

        out = dict(values)
        for old, new in self.aliases().items():
            if old not in out:
                continue
            if new in out:
                what = "options" if style == "cli" else "keys" if style == "job" else (
                    "parameters")
                raise InvalidParameterError(
                    f"The {what} {old!r} and {new!r} of {self.owner} are one setting "
                    f"({old!r} is its old name); give {new!r} only.")
            out[new] = out.pop(old)
            warnings.warn(f"{self.owner}: {old!r} is now {new!r} (the old name is removed in "
                          "0.3.0).", DeprecationWarning, stacklevel=3)
        return out

    def derive(self, owner: str, *, drop: Iterable[str] = (), add: Iterable[Param] = (),
               replace: Iterable[Param] = (), doc: str | None = None) -> Spec:
        """The spec of a variant of this function (a paper reproduction): the same
        parameters, less ``drop``, with ``replace`` (by name, in place) and ``add`` (at the
        end)."""
        gone, swap = set(drop), {p.name: p for p in replace}
        unknown = (gone | set(swap)) - set(self.names)
        if unknown:
            raise ValueError(f"derive {owner!r}: {sorted(unknown)} not in {self.owner!r}")
        params = [swap.get(p.name, p) for p in self.params if p.name not in gone]
        return Spec(owner, (*params, *add), doc=self.doc if doc is None else doc)

    def job_keys(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.job)

    def cli_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.flag)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params if not p.required}

    def validate(self, values: Mapping[str, Any], *, given: Iterable[str] | None = None,
                 owner: str | None = None) -> dict[str, Any]:
        """Every value of ``values`` checked; the returned dict has the normalized values.

        ``given`` (default: the parameters whose value differs from their default) are the
        ones the caller chose: a chosen parameter that does not apply (``only``) is refused,
        naming the setting it needs. ``owner`` names the caller in messages when it is not
        the spec's function (a helper that shares its parameters).
        """
        out = dict(values)
        for p in self.params:
            if p.name in values:
                out[p.name] = p.check(values[p.name], owner or self.owner)
        chosen = (set(given) if given is not None else
                  {n for n, v in values.items() if n in self.names
                   and not self[n].required and v != self[n].default})
        self.check_applies(out, chosen, style="api")
        return out

    def check_applies(self, values: Mapping[str, Any], chosen: Iterable[str], *,
                      style: str = "api") -> None:
        """Refuse a chosen parameter whose ``only`` setting does not hold. ``style`` names
        the parameters as the caller spells them: ``"api"`` (``theta``), ``"cli"``
        (``--theta``) or ``"job"`` (the key ``theta``)."""
        for name in sorted(set(chosen)):
            p = self[name]
            for other, want in p.conditions:
                have = values.get(other, self[other].default)
                if not (have in want if isinstance(want, tuple) else have == want):
                    raise InvalidParameterError(
                        self._applies_message(p, other, want, have, style))

    def _applies_message(self, p: Param, other: str, want: Any, have: Any, style: str) -> str:
        wants = want if isinstance(want, tuple) else (want,)
        if style == "cli":
            o = self[other]
            return (f"The {p.flag!r} option applies to {o.flag} {'|'.join(map(str, wants))} "
                    f"only (here {o.flag} {have}).")
        what = "key" if style == "job" else "parameter"
        shown = " or ".join(f"{other}={w!r}" for w in wants)
        return (f"The {p.name!r} {what} of {self.owner} applies to {shown} only "
                f"(here {other}={have!r}).")

    def markdown(self) -> str:
        """The docs' parameter table (generated; ``scripts/param_docs.py`` writes it)."""
        rows = ["| Parameter | CLI | Type | Default | Applies | Public | Help |",
                "|---|---|---|---|---|---|---|"]
        for p in self.params:
            default = "required" if p.required else f"`{p.default!r}`"
            applies = ", ".join(
                f"`{o}` in {list(v)}" if isinstance(v, tuple) else f"`{o}={v!r}`"
                for o, v in p.conditions) or "always"
            cli = f"`{p.flag}`" if p.flag else "—"
            text = p.help.replace("|", "\\|")
            rows.append(f"| `{p.name}` | {cli} | {p.describe()} | {default} | {applies} | "
                        f"{'yes' if p.public else 'no'} | {text} |")
        return "\n".join(rows)


def combine(owner: str, on: Param, parts: Mapping[str, Spec], *, doc: str = "") -> Spec:
    """One command's spec over several functions chosen by ``on`` (``--neighbourhood edge`` runs
    one, ``--neighbourhood node`` another): ``on`` first, then every parameter of each part, a
    parameter of one part applying only when ``on`` chooses it. A parameter in several
    parts must be declared identically in each (it is one option)."""
    merged: dict[str, Param] = {on.name: on}
    homes: dict[str, list[str]] = {}
    for value, spec in parts.items():
        for p in spec.params:
            if p.name == on.name:
                continue
            if p.name in merged and p.name not in homes:
                raise ValueError(f"combine {owner!r}: {p.name!r} clashes with {on.name!r}")
            if p.name in homes:
                first = parts[homes[p.name][0]][p.name]
                if first != p:
                    raise ValueError(f"combine {owner!r}: {p.name!r} is declared differently "
                                     f"in {homes[p.name][0]!r} and {value!r}")
                homes[p.name].append(value)
                continue
            homes[p.name] = [value]
            merged[p.name] = p
    params = []
    for name, p in merged.items():
        where = homes.get(name, list(parts))
        if name != on.name and len(where) < len(parts):  # some parts' only
            want = where[0] if len(where) == 1 else tuple(where)
            p = Param(**{**p.__dict__, "only": ((on.name, want), *p.conditions)})
        params.append(p)
    return Spec(owner, tuple(params), doc=doc, on=on.name, parts=dict(parts))


def render_block(text: str, name: str, spec: Spec) -> str:
    """``text`` (a docs page) with the table between ``<!-- params:name -->`` and
    ``<!-- /params:name -->`` replaced by :meth:`Spec.markdown` (generated; a page without
    the markers is an error: the table must have a place)."""
    start, end = f"<!-- params:{name} -->", f"<!-- /params:{name} -->"
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"no {start} ... {end} block")
    note = ("<!-- generated from the spec by scripts/param_docs.py; edit the Param, not "
            "this table -->")
    return text[:i + len(start)] + "\n" + note + "\n" + spec.markdown() + "\n" + text[j:]
