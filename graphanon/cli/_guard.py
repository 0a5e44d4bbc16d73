"""Around every command: its output paths checked before any work (none may be an input or
another output), and a library error about a parameter reported as the option's error."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import click

from ..errors import InvalidParameterError
from ._inputs import _echo_input_notes

#: The library's message for a parameter (:func:`graphanon._validation.fail`).
_LIBRARY_PARAMETER = re.compile(
    r"The '(?P<name>\w+)' parameter of \w+ (?P<rest>must .*)\. Got (?P<got>.*) instead\.",
    re.DOTALL)


def _as_option(exc: InvalidParameterError, kwargs: Mapping[str, Any],
               flags: Mapping[str, str]) -> InvalidParameterError | None:
    """The library's ``The 'max_degree' parameter of release_dk must be ...`` as the
    command's ``The '--max-degree' option must be ...``, when the parameter is an option of
    the command and holds the value the user gave (a value the command derived, a share of
    ``--epsilon`` say, keeps the library's message: naming the option would misstate it)."""
    m = _LIBRARY_PARAMETER.fullmatch(str(exc))
    if type(exc) is not InvalidParameterError or m is None:
        return None
    name = m.group("name")
    flag = flags.get(name, "")
    if not flag.startswith("--") or name not in kwargs or repr(kwargs[name]) != m.group("got"):
        return None
    return InvalidParameterError(
        f"The '{flag}' option {m.group('rest')}. Got {m.group('got')} instead.")


#: Parameter names that are outputs of a command (files or folders it writes).
OUTPUT_PARAMS = frozenset({"out", "out_path", "report", "report_path", "clusters",
                           "clusters_path", "outdir", "pseudonym_map", "record"})


#: Files a command reads and updates in place (the privacy ledger): no output may name one,
#: whether it exists yet or not (a new ledger overwritten by the table would lose the charge).
STATE_PARAMS = frozenset({"ledger"})


def check_outputs(outputs: Mapping[str, str], inputs: Mapping[str, str],
                  where: Callable[[str], str], input_name: Callable[[str], str] = str,
                  folders: frozenset[str] = frozenset()) -> None:
    """The checks :func:`guard_paths` makes before a command runs, for ``outputs`` (name ->
    path): none is an input, no two are one file, each can be written. ``where(name)`` says
    which option names an output (``"The '--out' option"``), ``input_name`` an input's;
    ``folders`` the outputs that are folders (``demo --out results/``: a trailing separator
    is what a folder's name may well end with)."""
    import os

    from ..io._atomic import can_write_in_place, creatable_reason, writes_in_place

    seen: dict[str, str] = {}
    for name, value in outputs.items():
        if name in folders:
            value = value.rstrip(os.sep) or value
        real = os.path.realpath(value)
        if not os.path.isdir(value) and writes_in_place(value):
            # /dev/null, a FIFO, /dev/stdout: written in place, never renamed over
            if not can_write_in_place(value):
                from ..io._atomic import own_descriptor

                why = ("the descriptor is closed or open for reading only"
                       if own_descriptor(value) is not None else "this user may not write it")
                raise InvalidParameterError(f"{where(name)} cannot write {value!r}: {why}.")
            continue
        for iname, ivalue in inputs.items():
            if real == os.path.realpath(ivalue):
                raise InvalidParameterError(
                    f"{where(name)} names the input {input_name(iname)} ({value!r}): "
                    "the command would overwrite its own input.")
        if real in seen:
            raise InvalidParameterError(
                f"{where(name)} and {where(seen[real]).lower()} name the same file "
                f"{value!r}.")
        seen[real] = name
        reason = creatable_reason(value)
        if reason is not None:
            raise InvalidParameterError(f"{where(name)} cannot write {value!r}: {reason}.")


def guard_paths(cmd: click.Command) -> click.Command:
    """Wrap ``cmd`` so that, before it runs, its output paths are checked.

    * no output may be one of the command's existing input files (which it would destroy),
      nor its ledger (:data:`STATE_PARAMS`), existing or not,
    * no two outputs may be the same file,
    * every output must be writable: its nearest existing ancestor is a directory in which a
      file can be created.

    A command whose ``--report`` is an input (``neo4j write-release``) lists it in its
    ``input_params`` attribute.
    """
    import functools
    import os

    inner = cmd.callback
    if inner is None:
        return cmd
    as_inputs = set(getattr(cmd, "input_params", ()))
    flags = {p.name: (p.opts[0] if isinstance(p, click.Option) else p.human_readable_name)
             for p in cmd.params}
    paths = {p.name for p in cmd.params if isinstance(p.type, click.Path)}
    folders = frozenset(p.name for p in cmd.params
                        if isinstance(p.type, click.Path) and not p.type.file_okay and p.name)

    def where(name: str) -> str:
        return f"The '{flags.get(name, name)}' option"

    @functools.wraps(inner)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        from .._parallel import threads
        from ..io._atomic import own_descriptor

        threads()  # a bad GRAPHANON_THREADS fails every command, not only large inputs
        for name, value in kwargs.items():  # '' would silently mean "not given"
            if isinstance(value, str) and not value.strip():
                raise InvalidParameterError(
                    f"{where(name)} is empty ({value!r}); give a value or leave the option "
                    "out.")
        outputs = {k: v for k, v in kwargs.items()
                   if k in OUTPUT_PARAMS and k not in as_inputs and isinstance(v, str)}
        if any(own_descriptor(v) == 1 for v in outputs.values()):
            ctx = click.get_current_context()
            ctx.find_root().ensure_object(dict)
            ctx.find_root().obj["stdout_is_data"] = True
        inputs = {k: v for k, v in kwargs.items()
                  if k not in outputs and isinstance(v, str) and v
                  and (os.path.isfile(v) or k in STATE_PARAMS)}
        check_outputs(outputs, inputs, where,
                      lambda n: str(flags.get(n, n)), folders)
        for state in STATE_PARAMS:  # the ledger is no input either, existing or not
            value = kwargs.get(state)
            if not isinstance(value, str) or not value:
                continue
            for name, other in kwargs.items():
                if (name != state and name in paths and isinstance(other, str) and other
                        and os.path.realpath(other) == os.path.realpath(value)):
                    raise InvalidParameterError(
                        f"{where(state)} and {where(name).lower()} name the same file "
                        f"{value!r}: the ledger is updated in place and cannot be an input.")
        from ..io._atomic import output_transaction
        from ..privacy.release import run_clock

        # every record of the run is stamped with its start; every file it writes is
        # committed together with the others (and after the ledger charge), or not at all
        with run_clock(), output_transaction():
            try:
                rv = inner(*args, **kwargs)
            except InvalidParameterError as exc:
                named = _as_option(exc, kwargs, flags)
                if named is None:
                    raise
                raise named from None
        _echo_input_notes()  # after success only: a failure prints its one error line
        return rv

    cmd.callback = wrapped
    return cmd
