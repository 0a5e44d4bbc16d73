"""Privacy at the system boundary (issue 13): what a published record, file or ledger reveals.

Each test reproduces an attack on a graph of its own and checks that it no longer works:

* records of neighbouring inputs are identical but for release id, time, seed and the keyed
  fingerprint (no wall time, no input counts) — for every DP command;
* universes are never read off the data (a vanishing node changes nothing public);
* one ledger is one budget however its path is spelled, also across processes;
* budgets cannot be keyed by a content hash;
* every DP command charges the ledger before anything is in place (exit 3 when short);
* published user lists carry pseudonyms, not names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from graphanon import Graph
from graphanon.cli import main
from graphanon.datasets import load_polbooks
from graphanon.errors import InvalidParameterError, PrivacyBudgetExceeded
from graphanon.io.dk_tables import read_dk_table
from graphanon.io.files import read_bipartite, write_bipartite, write_graph
from graphanon.privacy.accountant import Accountant, JsonLedger
from graphanon.privacy.release import Release

#: What may differ between the records of two runs: identities, time, seed, the keyed hash
#: salted with the release id (random per release: test_release checks it never repeats), and
#: the binding of the published payload (its shape and keyed digest: functions of the
#: published output alone, so covered by the release's own guarantee; tests/test_publish.py).
VOLATILE = {"release_id", "created_at", "seed", "source_fingerprint", "payload_shape",
            "payload_digest"}


def _record(report: Path) -> dict:
    data = json.loads(report.read_text())
    rec = data["release"]
    return {k: v for k, v in rec.items() if k not in VOLATILE}


def _run(args: list[str], tmp: Path, name: str) -> dict:
    out, rep = tmp / f"{name}.out", tmp / f"{name}.json"
    code = main(["-q", *args, "--out", str(out), "--report", str(rep)])
    assert code == 0, args
    return _record(rep)


# ---------------------------------------------------------------------- neighbouring inputs
def _polbooks_pair(tmp: Path, kind: str) -> tuple[Path, Path, Path]:
    """polbooks and a neighbour: one more edge (edge) or without its highest-degree node
    (node); plus the node universe file (for edge-level commands)."""
    G = load_polbooks()
    if kind == "edge":
        u, v = G.edges()
        a, b = next((a, b) for a in range(G.n_nodes) for b in range(a + 1, G.n_nodes)
                    if not G.has_edge(a, b))
        H = G.with_edges(np.append(u, a), np.append(v, b))
    else:
        hub = int(np.argmax(G.degrees))
        H = G.subgraph(np.arange(G.n_nodes) != hub)
    g, h = tmp / "g.txt", tmp / "h.txt"
    write_graph(G, g)
    write_graph(H, h)
    nodes = tmp / "nodes.txt"
    nodes.write_text("".join(f"{x}\n" for x in G.node_ids))
    prefs = tmp / "prefs.tsv"
    prefs.write_text("".join(f"{x}\t{0.1 if i % 3 else 1.0}\n"
                             for i, x in enumerate(G.node_ids)))
    return g, h, nodes


GRAPH_COMMANDS = {
    "dk1-edge": ("edge", ["release-dk", "--d", "1", "--epsilon", "1", "--max-degree", "30"]),
    "dk1-edge-universe": ("edge", ["release-dk", "--d", "1", "--epsilon", "1", "--nodes",
                                   "{nodes}"]),
    "dk2-edge": ("edge", ["release-dk", "--d", "2", "--epsilon", "1", "--max-degree", "25"]),
    "dk2-mdav": ("edge", ["release-dk", "--d", "2", "--epsilon", "1", "--max-degree", "25",
                          "--microaggregation", "mdav", "--k", "5"]),
    "dk2-mpdc": ("edge", ["release-dk", "--d", "2", "--epsilon", "1", "--max-degree", "25",
                          "--microaggregation", "mpdc", "--tau", "4"]),
    "dk2-sampled": ("edge", ["release-dk", "--d", "2", "--epsilon", "1", "--max-degree",
                             "2000", "--form", "sampled"]),
    "dk1-node": ("node", ["release-dk", "--d", "1", "--epsilon", "1", "--neighbourhood", "node",
                          "--theta", "8"]),
    "dk2-node": ("node", ["release-dk", "--d", "2", "--epsilon", "1", "--neighbourhood", "node",
                          "--theta", "6"]),
    "degrees-rps": ("node", ["release-degrees", "--method", "rps", "--epsilon", "1",
                             "--max-nodes", "150"]),
    "degrees-laplace": ("node", ["release-degrees", "--method", "laplace", "--epsilon", "1",
                                 "--theta", "10"]),
    "degrees-hay": ("edge", ["release-degrees", "--method", "hay", "--epsilon", "1",
                             "--nodes", "{nodes}"]),
    "pdp-edge": ("edge", ["release-personalized", "--d", "1", "--neighbourhood", "edge", "--method",
                          "tp", "--mu", "0.5", "--theta", "20", "--prefs", "{prefs}",
                          "--nodes", "{nodes}"]),
    "pdp-node": ("node", ["release-personalized", "--d", "2", "--neighbourhood", "node", "--method",
                          "min", "--theta", "5", "--prefs", "{prefs}"]),
}


@pytest.mark.parametrize("name", sorted(GRAPH_COMMANDS))
def test_neighbouring_inputs_give_identical_records(tmp_path: Path, name: str) -> None:
    kind, args = GRAPH_COMMANDS[name]
    g, h, nodes = _polbooks_pair(tmp_path, kind)
    fill = {"nodes": str(nodes), "prefs": str(tmp_path / "prefs.tsv")}
    args = [a.format(**fill) for a in args]
    # the same seed: the public randomness it drives (projection keys) is the same
    a = _run([args[0], str(g), *args[1:], "--seed", "7"], tmp_path, "a")
    b = _run([args[0], str(h), *args[1:], "--seed", "7"], tmp_path, "b")
    assert a == b
    assert "seconds" not in a and "n_nodes" not in a["params"] and "n" not in a["params"]


def _bipartite_pair(tmp: Path, level: str) -> tuple[Path, Path]:
    """The Adult sample and a neighbour: one cell less (edge) or one user's row emptied
    (node); plus the user and feature universe files."""
    from graphanon.datasets import load_adult_sample

    B = load_adult_sample()
    write_bipartite(B, tmp / "b.tsv")
    r, c = B.edges()
    if level == "edge":  # one cell less
        H = B.with_cells(r[1:], c[1:])
    else:  # one user's row emptied (it stays in the public universe)
        keep = r != r[0]
        H = B.with_cells(r[keep], c[keep])
    write_bipartite(H, tmp / "h.tsv")
    (tmp / "users.txt").write_text("".join(f"{u}\n" for u in B.user_ids))
    (tmp / "features.txt").write_text("".join(f"{f}\n" for f in B.feature_ids) + "spare\n")
    return tmp / "b.tsv", tmp / "h.tsv"


@pytest.mark.parametrize("level", ["edge", "node"])
def test_randomized_response_records_of_neighbours(tmp_path: Path, level: str) -> None:
    b, h = _bipartite_pair(tmp_path, level)
    eps = "2" if level == "edge" else "400"
    common = ["--epsilon", eps, "--neighbourhood", level, "--users", str(tmp_path / "users.txt"),
              "--features", str(tmp_path / "features.txt")]
    a = _run(["randomized-response", str(b), *common], tmp_path, "a")
    c = _run(["randomized-response", str(h), *common], tmp_path, "c")
    assert a == c


def test_a_vanishing_node_changes_nothing_public(tmp_path: Path) -> None:
    """A 4-cycle plus edge 0–4 and the 4-cycle alone are edge neighbours; their records
    used to say n_nodes 5 and 4. Without a universe the 1K leaves degree 0 out; with one,
    node 4 is an isolated node of both."""
    (tmp_path / "a.txt").write_text("0 1\n1 2\n2 3\n3 0\n0 4\n")
    (tmp_path / "b.txt").write_text("0 1\n1 2\n2 3\n3 0\n")
    (tmp_path / "u.txt").write_text("0\n1\n2\n3\n4\n")
    for extra in (["--max-degree", "4"], ["--nodes", str(tmp_path / "u.txt")]):
        args = ["release-dk", "--d", "1", "--epsilon", "50", *extra]
        ra = _run([args[0], str(tmp_path / "a.txt"), *args[1:]], tmp_path, "ra")
        rb = _run([args[0], str(tmp_path / "b.txt"), *args[1:]], tmp_path, "rb")
        assert ra == rb
        table = read_dk_table(tmp_path / "ra.out")
        has_zero = 0 in table.degrees[:, 0].tolist()
        if "--nodes" in extra:
            assert ra["params"]["node_universe"].startswith("given")
        else:
            assert not has_zero and ra["params"]["node_universe"].startswith("none")


# ---------------------------------------------------------------------- ledgers
@pytest.mark.parametrize("args", [
    ["release-dk", "--d", "1", "--epsilon", "1", "--nodes", "{u}"],
    ["release-dk", "--d", "2", "--epsilon", "1", "--neighbourhood", "node", "--theta", "4"],
    ["release-degrees", "--method", "rps", "--epsilon", "1", "--max-nodes", "10"],
    ["release-degrees", "--method", "hay", "--epsilon", "1", "--nodes", "{u}"],
])
def test_the_empty_graph_is_released_like_its_neighbours(tmp_path: Path,
                                                         args: list[str]) -> None:
    """An edge list with no data line is the empty graph; its neighbour (one edge, or one
    node with its edge) is read. Refusing one and releasing the other would tell them apart
    by whether the run fails."""
    (tmp_path / "empty.txt").write_text("# nothing yet\n")
    (tmp_path / "one.txt").write_text("1 2\n")
    (tmp_path / "u.txt").write_text("1\n2\n3\n")
    args = [a.format(u=tmp_path / "u.txt") for a in args]
    a = _run([args[0], str(tmp_path / "empty.txt"), *args[1:], "--seed", "7"], tmp_path, "a")
    b = _run([args[0], str(tmp_path / "one.txt"), *args[1:], "--seed", "7"], tmp_path, "b")
    assert a == b


def test_one_ledger_one_budget_through_three_spellings(tmp_path: Path) -> None:
    """Issue 13 point 4: three ε=1 charges against a budget of 2, through the real path, a
    symbolic link and ./x/../ledger.json, in parallel processes: exactly two go through."""
    (tmp_path / "x").mkdir()
    real = tmp_path / "ledger.json"
    Accountant(2.0, dataset="social", ledger=real)  # creates it
    link = tmp_path / "link.json"
    link.symlink_to(real)
    spellings = [str(real), str(link), str(tmp_path / "x" / ".." / "ledger.json")]
    code = textwrap.dedent("""
        import sys, time
        from graphanon.errors import PrivacyBudgetExceeded
        from graphanon.privacy.accountant import Accountant
        acc = Accountant(2.0, dataset="social", ledger=sys.argv[1])
        time.sleep(0.3)
        try:
            acc.spend_epsilon(1.0, mechanism="test")
        except PrivacyBudgetExceeded:
            sys.exit(3)
    """)
    env = {**os.environ, "GRAPHANON_HOME": str(tmp_path / "home")}
    procs = [subprocess.Popen([sys.executable, "-c", code, p], env=env) for p in spellings]
    codes = sorted(p.wait(timeout=120) for p in procs)
    assert codes == [0, 0, 3]
    assert link.is_symlink()  # the link still points at the one ledger
    data = json.loads(real.read_text())
    assert sum(e["epsilon"] for e in data["datasets"]["social"]["entries"]) == 2.0


def test_hard_linked_ledger_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "ledger.json"
    JsonLedger(real).create_budget("social", 2.0)
    os.link(real, tmp_path / "other.json")
    with pytest.raises(InvalidParameterError, match="hard links"):
        Accountant(2.0, dataset="social", ledger=tmp_path / "other.json")


@pytest.mark.parametrize("bad", [
    {"format": "graphanon-ledger/1"},
    {"format": "graphanon-ledger/1", "datasets": {"d": {"budget": "2", "neighbourhood": "edge",
                                                         "entries": []}}},
    {"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, "neighbourhood": "edge",
                                                         "entries": [{"x": 1}]}}},
    {"format": "graphanon-ledger/1", "datasets": {"d": {"budget": 2, "neighbourhood": "edge",
                                                         "entries": [{
                                                             "release_id": "r",
                                                             "mechanism": "m",
                                                             "neighbourhood": "edge",
                                                             "epsilon": -100,
                                                             "composition": "sequential",
                                                             "created_at": "t"}]}}},
])
def test_malformed_ledgers_are_refused(tmp_path: Path, bad: dict) -> None:
    p = tmp_path / "ledger.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(InvalidParameterError, match="ledger"):
        Accountant(2.0, dataset="d", ledger=p).spend_epsilon(1.0, mechanism="m")


def test_budget_keys_cannot_be_content_hashes(tmp_path: Path) -> None:
    G = Graph.from_edges([0, 1], [1, 2])
    for key in (G.content_hash, Release.create(mechanism="m", neighbourhood="none",
                                               source_fingerprint=G.content_hash
                                               ).source_fingerprint, "A" * 40,
                "SHA256:" + G.content_hash[-64:], "blake2b:" + "ab" * 32,
                "ds-" + G.content_hash[-40:], G.content_hash[-31:], "x" + "0f" * 10 + "y"):
        with pytest.raises(InvalidParameterError, match="content hash"):
            Accountant(1.0, dataset=key)
    for name in ("social-prod", "550e8400-e29b-41d4-a716-446655440000", "export-20261124",
                 "a" * 19):
        assert Accountant(1.0, dataset=name).dataset == name
    with pytest.warns(DeprecationWarning):
        assert G.fingerprint == G.content_hash


def test_no_documented_example_keys_a_budget_by_the_data() -> None:
    root = Path(__file__).resolve().parents[2]
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = doc.read_text()
        for bad in ("dataset=G.fingerprint", "dataset=G.content_hash", "dataset=B.fingerprint",
                    "fingerprint_key", "dataset=fingerprint"):
            assert bad not in text, (doc.name, bad)


LEDGER_COMMANDS = {
    "release-dk": ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--max-degree", "20"],
    "release-dk-node": ["release-dk", "{g}", "--d", "1", "--epsilon", "1", "--neighbourhood",
                        "node", "--theta", "6"],
    "release-degrees": ["release-degrees", "{g}", "--epsilon", "1", "--max-nodes", "150"],
    "release-personalized": ["release-personalized", "{g}", "--d", "1", "--neighbourhood", "edge",
                             "--method", "tp", "--mu", "1.0", "--theta", "10", "--prefs",
                             "{prefs}", "--nodes", "{nodes}"],
    "randomized-response": ["randomized-response", "{b}", "--epsilon", "1", "--users",
                            "{users}", "--features", "{features}"],
}


@pytest.mark.parametrize("name", sorted(LEDGER_COMMANDS))
def test_every_dp_command_charges_the_ledger(tmp_path: Path, name: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    g, _, nodes = _polbooks_pair(tmp_path, "edge")
    b, _ = _bipartite_pair(tmp_path, "edge")
    fill = {"g": str(g), "nodes": str(nodes), "prefs": str(tmp_path / "prefs.tsv"),
            "b": str(b), "users": str(tmp_path / "users.txt"),
            "features": str(tmp_path / "features.txt")}
    args = [a.format(**fill) for a in LEDGER_COMMANDS[name]]
    ledger = tmp_path / "ledger.json"
    base = ["--ledger", str(ledger), "--dataset", "polbooks"]

    def go(i: int, *extra: str) -> int:
        out, rep = tmp_path / f"o{i}", tmp_path / f"r{i}.json"
        return main(["-q", *args, *base, *extra, "--out", str(out), "--report", str(rep)])

    # the first use needs a budget
    assert go(0) == 2 and "--budget" in capsys.readouterr().err
    assert not (tmp_path / "o0").exists()
    assert go(1, "--budget", "1.5") == 0
    entries = json.loads(ledger.read_text())["datasets"]["polbooks"]["entries"]
    assert len(entries) == 1 and entries[0]["epsilon"] == pytest.approx(1.0)
    rec = json.loads((tmp_path / "r1.json").read_text())["release"]
    assert entries[0]["release_id"] == rec["release_id"]
    # the second release does not fit: exit 3, nothing written, nothing charged
    assert go(2) == 3
    assert "exceeded" in capsys.readouterr().err
    assert not (tmp_path / "o2").exists() and not (tmp_path / "r2.json").exists()
    assert len(json.loads(ledger.read_text())["datasets"]["polbooks"]["entries"]) == 1
    # --dataset without --ledger is an error, not a silent no-op
    assert main(["-q", *args, "--dataset", "x", "--out", str(tmp_path / "o3"),
                 "--report", str(tmp_path / "r3.json")]) == 2


def test_a_failed_write_costs_no_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The ledger is charged after every output was written and before any is put in
    place: when the disk fills up while the report is written (after the table), no file
    appears and no budget is spent."""
    import errno

    from graphanon.cli import release_dk as cli_dk
    from graphanon.io._atomic import atomic_path

    def full_disk(path, payload):  # type: ignore[no-untyped-def]
        with atomic_path(path):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cli_dk, "write_json", full_disk)
    g, _, _ = _polbooks_pair(tmp_path, "edge")
    ledger = tmp_path / "ledger.json"
    code = main(["-q", "release-dk", str(g), "--d", "1", "--epsilon", "1", "--max-degree",
                 "20", "--ledger", str(ledger), "--dataset", "polbooks", "--budget", "3",
                 "--out", str(tmp_path / "o.tsv"), "--report", str(tmp_path / "r.json")])
    assert code == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "r.json" in err
    assert not (tmp_path / "o.tsv").exists() and not (tmp_path / "r.json").exists()
    assert not list(tmp_path.glob(".*.tmp"))
    # no ledger (nor its lock) is left behind by a refused run: it is created by a charge
    assert not ledger.exists() and not list(tmp_path.glob("ledger.json*"))


def test_accountant_open_uses_the_stored_budget(tmp_path: Path) -> None:
    ledger = tmp_path / "l.json"
    with pytest.raises(InvalidParameterError, match="no budget"):
        Accountant.open(ledger, dataset="d")
    Accountant.open(ledger, dataset="d", budget=1.0, neighbourhood="node")
    assert not ledger.exists()  # written by the first charge, not by opening
    Accountant.open(ledger, dataset="d", budget=1.0, neighbourhood="node").spend_epsilon(
        0.5, mechanism="m")
    acc = Accountant.open(ledger, dataset="D")
    assert (acc.budget, acc.neighbourhood) == (1.0, "node")
    acc.spend_epsilon(0.5, mechanism="m")
    with pytest.raises(PrivacyBudgetExceeded):
        Accountant.open(ledger, dataset="d").spend_epsilon(0.1, mechanism="m")


# ---------------------------------------------------------------------- published files
@pytest.mark.parametrize("command", ["smooth-k", "mondrian"])
def test_published_user_lists_carry_no_names(tmp_path: Path, command: str) -> None:
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    lines = [f"{n}\tage=30" for n in names] + [f"{n}\tcity=x" for n in names[:3]]
    (tmp_path / "in.tsv").write_text("\n".join(lines) + "\n")
    out = tmp_path / "pub" / "out.tsv"
    assert main(["-q", command, str(tmp_path / "in.tsv"), "--k", "3", "--out", str(out),
                 "--report", str(tmp_path / "r.json")]) == 0
    text = out.read_text()
    assert not any(n in text for n in names) and "age=30" in text
    assert read_bipartite(out).n_users == len(names)


@pytest.mark.filterwarnings("default::graphanon.errors.RealIdsWarning")
def test_real_ids_only_with_a_warning_and_cluster_lists_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--keep-ids`` publishes real ids with one warning line; ``--clusters`` (real id ->
    cluster, which gives every user's published row) is refused beside the output, like
    ``--pseudonym-map``, before anything is written."""
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    (tmp_path / "in.tsv").write_text("".join(f"{n}\tage=30\n" for n in names))
    pub = tmp_path / "pub"
    base = ["-q", "smooth-k", str(tmp_path / "in.tsv"), "--k", "3", "--report",
            str(tmp_path / "r.json")]
    assert main([*base, "--out", str(pub / "kept.tsv"), "--keep-ids"]) == 0
    assert "alice" in (pub / "kept.tsv").read_text()
    assert capsys.readouterr().err.count("graphanon: warning: --keep-ids: the output lists "
                                         "the real ids") == 1
    for clusters in (pub / "c.tsv", pub / "sub" / "c.tsv"):
        assert main([*base, "--out", str(pub / "o.tsv"), "--clusters", str(clusters)]) == 2
        assert "'--clusters' option names" in capsys.readouterr().err
        assert not (pub / "o.tsv").exists() and not clusters.exists()
    assert main([*base, "--out", str(pub / "o.tsv"), "--clusters", str(tmp_path / "c.tsv")]) == 0
    assert "alice" in (tmp_path / "c.tsv").read_text()
    # a distributed run writes folders: a clusters folder inside the output's is refused
    # before any cluster starts
    assert main([*base, "--out", str(tmp_path / "d"), "--clusters", str(tmp_path / "d" / "c"),
                 "--cluster", "local:2"]) == 2
    assert "'--clusters' option names" in capsys.readouterr().err
