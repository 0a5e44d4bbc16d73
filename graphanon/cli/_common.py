"""The CLI's shared helpers, by responsibility: :mod:`._console` (messages, progress, clock),
:mod:`._params` (parameter types, shared option groups), :mod:`._inputs` (reading inputs),
:mod:`._guard` (output paths checked, library errors as option errors), :mod:`._outputs`
(writing outputs), :mod:`._privacy` (seeds, noise backends, the ledger).

This module re-exports all of them for the command modules that still import from it (shim:
removed in 0.3.0; import from the module named above).
"""

from __future__ import annotations

from ._console import (
    _STARTED as _STARTED,
)
from ._console import (
    _chatter_on_stderr as _chatter_on_stderr,
)
from ._console import (
    _option as _option,
)
from ._console import (
    echo as echo,
)
from ._console import (
    progress_bar as progress_bar,
)
from ._console import (
    progress_task as progress_task,
)
from ._console import (
    quiet as quiet,
)
from ._console import (
    start_clock as start_clock,
)
from ._console import (
    wall_seconds as wall_seconds,
)
from ._console import (
    warn_after_success as warn_after_success,
)
from ._guard import (
    _LIBRARY_PARAMETER as _LIBRARY_PARAMETER,
)
from ._guard import (
    OUTPUT_PARAMS as OUTPUT_PARAMS,
)
from ._guard import (
    STATE_PARAMS as STATE_PARAMS,
)
from ._guard import (
    _as_option as _as_option,
)
from ._guard import (
    check_outputs as check_outputs,
)
from ._guard import (
    guard_paths as guard_paths,
)
from ._inputs import (
    BOTH_WAYS as BOTH_WAYS,
)
from ._inputs import (
    CLEANING_LABELS as CLEANING_LABELS,
)
from ._inputs import (
    _echo_input_notes as _echo_input_notes,
)
from ._inputs import (
    _noted as _noted,
)
from ._inputs import (
    _release_parser_memory as _release_parser_memory,
)
from ._inputs import (
    both_ways as both_ways,
)
from ._inputs import (
    cleaning_report as cleaning_report,
)
from ._inputs import (
    load_bipartite as load_bipartite,
)
from ._inputs import (
    load_graph as load_graph,
)
from ._inputs import (
    read_record as read_record,
)
from ._inputs import (
    read_universe as read_universe,
)
from ._inputs import (
    refuse_skip_bad_rows as refuse_skip_bad_rows,
)
from ._outputs import (
    bound as bound,
)
from ._outputs import (
    outside_published as outside_published,
)
from ._outputs import (
    pseudonymized as pseudonymized,
)
from ._outputs import (
    write_graph_output as write_graph_output,
)
from ._outputs import (
    write_json as write_json,
)
from ._params import (
    EPSILON as EPSILON,
)
from ._params import (
    FLOAT as FLOAT,
)
from ._params import (
    FORMAT_CHOICE as FORMAT_CHOICE,
)
from ._params import (
    OUT_FORMAT_CHOICE as OUT_FORMAT_CHOICE,
)
from ._params import (
    RR_EPSILON as RR_EPSILON,
)
from ._params import (
    SEED_OF_NOISE_ONLY as SEED_OF_NOISE_ONLY,
)
from ._params import (
    _Float as _Float,
)
from ._params import (
    distributed_options as distributed_options,
)
from ._params import (
    ledger_options as ledger_options,
)
from ._params import (
    nodes_option as nodes_option,
)
from ._params import (
    noise_options as noise_options,
)
from ._params import (
    noise_options_seeding as noise_options_seeding,
)
from ._params import (
    pseudonym_options as pseudonym_options,
)
from ._privacy import (
    charge_on_commit as charge_on_commit,
)
from ._privacy import (
    make_rng as make_rng,
)
from ._privacy import (
    open_ledger as open_ledger,
)
from ._privacy import (
    resolve_noise as resolve_noise,
)

__all__ = [
    "distributed_options",
    "echo",
    "guard_paths",
    "load_bipartite",
    "load_graph",
    "make_rng",
    "noise_options",
    "progress_bar",
    "progress_task",
    "resolve_noise",
    "write_json",
]
