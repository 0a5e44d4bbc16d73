"""``graphanon synthesize``: a private synthetic graph, one record, one ledger charge.

Glue only: the pipeline is :func:`graphanon.synthetic.synthesize`.
"""

from __future__ import annotations

import warnings

import click

from ..errors import InvalidParameterError
from ..synthetic.pipeline import SYNTHESIZE
from ._console import echo, progress_bar, progress_task, wall_seconds
from ._guard import check_outputs
from ._inputs import load_graph, read_universe
from ._outputs import write_graph_output
from ._params import FORMAT_CHOICE, OUT_FORMAT_CHOICE, ledger_options, noise_options
from ._privacy import charge_on_commit, open_ledger, resolve_noise
from ._spec import options_from, spec_values

__all__ = ["COMMANDS", "synthesize_cmd"]

#: The record written next to the graph: ``OUT`` + this suffix (as the demo's graphs).
RECORD_SUFFIX = ".release.json"


@click.command("synthesize")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@options_from(SYNTHESIZE)  # --epsilon, --neighbourhood, --theta: declared with the function
@click.option("--nodes", "nodes_path", type=click.Path(dir_okay=False), default=None,
              help="edge (required): the PUBLIC node universe, one id per line; the "
                   "synthetic graph has exactly these nodes and ids. node: refused (the node "
                   "set is what node-DP protects).")
@noise_options
@ledger_options
@click.option("--out", "-o", "out", type=click.Path(dir_okay=False), required=True,
              help="The synthetic graph (format from the extension, or --out-format; "
                   ".parquet / .graphml keep nodes without edges).")
@click.option("--record", "record", type=click.Path(dir_okay=False), default=None,
              help="Where the Release record goes (default: OUT.release.json, next to the "
                   "graph); 'graphanon neo4j write-release --graph OUT --report RECORD' "
                   "takes the pair.")
@click.option("--format", "fmt", type=FORMAT_CHOICE, help="Input format (default: extension).")
@click.option("--out-format", type=OUT_FORMAT_CHOICE,
              help="Output format (default: extension).")
def synthesize_cmd(input_path: str, epsilon: float, neighbourhood: str | None,
                   nodes_path: str | None,
                   theta: int | None, block_slope: float | None,
                   block_mixing: float | str | None, noise: str,
                   seed: int | None, ledger: str | None,
                   dataset: str | None, budget: float | None,
                   budget_neighbourhood: str | None, out: str, record: str | None,
                   fmt: str | None, out_format: str | None) -> None:
    """Release a private synthetic graph of INPUT (edge-DP on the public node ids, or node-DP).

    edge: the public node set (--nodes FILE) is required; the synthetic graph has exactly
    its nodes and ids. node: the graph is projected to maximum degree θ by edge addition,
    a private edge total and the θ-dKε 2K table are released and realized (new ids).

    The record (OUT.release.json, or --record) states the mechanism (synthesize-edge /
    synthesize-node), the neighbourhood, the total ε, its split across the parts and each
    part's sensitivity. With --ledger FILE --dataset NAME the total ε is charged once,
    before any output is put in place (exit 3 when the budget is short).
    """
    from ..io._atomic import atomic_write_text, writes_in_place
    from ..io.files import graph_output_format
    from ..privacy.publish import bind
    from ..synthetic.pipeline import synthesize

    values = spec_values(SYNTHESIZE, {"epsilon": epsilon, "neighbourhood": neighbourhood,
                                      "theta": theta, "block_slope": block_slope,
                                      "block_mixing": block_mixing})
    privacy = values["neighbourhood"]
    if privacy == "edge":
        if nodes_path is None:
            raise InvalidParameterError(
                "synthesize --neighbourhood edge needs the public node set (--nodes FILE): the "
                "synthetic graph keeps the public node ids, and reading the nodes off the "
                "private edges would leak them.")
        if theta is not None:
            raise InvalidParameterError(
                "The '--theta' option applies to --neighbourhood node (the degree bound of its "
                "projection); edge-DP needs none.")
    elif nodes_path is not None:
        raise InvalidParameterError(
            "The '--nodes' option applies to --neighbourhood edge: under node-DP the node set "
            "itself is private (the synthetic nodes get new ids).")
    out_format = graph_output_format(out, out_format)
    if record is None:
        if writes_in_place(out):
            raise InvalidParameterError(
                f"The '--out' option {out!r} is written in place (a device, a pipe or a "
                "descriptor): there is no 'next to it' for the record; name it with "
                "--record PATH.")
        record = out + RECORD_SUFFIX
        inputs = {k: v for k, v in (("INPUT", input_path), ("--nodes", nodes_path),
                                    ("--ledger", ledger)) if v is not None}
        check_outputs({"record": record}, inputs,
                      lambda _: f"The record next to --out ({record!r})")
    acc = open_ledger(ledger, dataset, budget, budget_neighbourhood, neighbourhood=privacy,
                      epsilon=epsilon)
    nodes = read_universe(nodes_path, "node")
    with progress_task(f"reading {input_path}"):
        G = load_graph(input_path, fmt)
    backend, rng, used_seed = resolve_noise(noise, seed)
    with warnings.catch_warnings(record=True) as caught, progress_bar() as bar:
        warnings.simplefilter("always")
        res = synthesize(G, **values, nodes=nodes, backend=backend, rng=rng,
                         seed=used_seed, progress=bar)
    for w in caught:
        click.echo(f"graphanon: warning: {w.message}", err=True)
    del G
    with progress_task(f"writing {out}"):
        write_graph_output(res.graph, out, out_format)
    release = bind(res.release, res.graph)  # the record names exactly the graph it released
    atomic_write_text(record, release.to_json() + "\n")
    charge_on_commit(acc, release)
    split = ", ".join(f"{k} {v:.3g}" for k, v in release.params["epsilon_split"].items())
    echo(f"{out}: {release.mechanism} ε={epsilon:g} ({split}); {res.graph.n_nodes} nodes, "
         f"{res.graph.n_edges} edges; record {record} ({wall_seconds():.1f} s)")


COMMANDS = [synthesize_cmd]
