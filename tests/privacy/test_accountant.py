"""Accountant: sequential / parallel composition, refusal, persistent atomic ledger."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphanon.errors import InvalidParameterError, PrivacyBudgetExceeded
from graphanon.privacy.accountant import (
    NODE_TO_EDGE,
    Accountant,
    JsonLedger,
    charge_epsilon,
    fits_budget,
)
from graphanon.privacy.release import Release


def _rel(eps, nb="edge", ds="fp1", **kw):
    return Release.create(mechanism="m", neighbourhood=nb, epsilon=eps, source_fingerprint=ds,
                          **kw)


def test_sequential_composition_and_refusal(tmp_path):
    ledger = tmp_path / "ledger.json"
    acc = Accountant(1.0, dataset="fp1", ledger=ledger)
    for _ in range(10):
        acc.spend(_rel(0.1))  # float sums: ten 0.1 fit exactly
    assert acc.spent == pytest.approx(1.0)
    before = ledger.read_bytes()
    with pytest.raises(PrivacyBudgetExceeded, match="exceeded") as info:
        acc.spend(_rel(0.01))
    assert info.value.exit_code == 3
    assert ledger.read_bytes() == before  # nothing recorded on refusal
    assert len(acc.entries) == 10


def test_ledger_is_shared_between_instances(tmp_path):
    ledger = tmp_path / "sub" / "ledger.json"
    a = Accountant(2.0, dataset="fp1", ledger=ledger)
    b = Accountant(2.0, dataset="fp1", ledger=ledger)
    a.spend(_rel(1.5))
    assert b.spent == pytest.approx(1.5)
    with pytest.raises(PrivacyBudgetExceeded):
        b.spend(_rel(0.6))
    other = Accountant(0.5, dataset="fp2", ledger=ledger)  # another dataset, own budget
    other.spend(_rel(0.5, ds="fp2"))
    data = json.loads(ledger.read_text())
    assert data["format"] == "graphanon-ledger/1"
    assert set(data["datasets"]) == {"fp1", "fp2"}
    assert not list(ledger.parent.glob(".ledger.json.*.tmp"))
    with pytest.raises(InvalidParameterError, match="set once"):
        Accountant(3.0, dataset="fp1", ledger=ledger)


def test_neighbourhood_rules():
    node = Accountant(1.0, dataset="fp1", neighbourhood="node")
    with pytest.raises(InvalidParameterError, match="no node-level guarantee"):
        node.spend(_rel(0.1, nb="edge"))
    node.spend(_rel(0.3, nb="node"))
    edge = Accountant(1.0, dataset="fp1", neighbourhood="edge")
    assert edge.spend(_rel(0.3, nb="node")).epsilon == 0.6  # ε-node-DP is 2ε-edge-DP
    pers = Release.create(mechanism="p", neighbourhood="personalized-edge",
                          epsilon_summary={"min": 0.1, "median": 0.2, "max": 0.4},
                          source_fingerprint="fp1")
    assert edge.spend(pers).epsilon == 0.4
    with pytest.raises(InvalidParameterError, match="carries no ε"):
        edge.spend(Release.create(mechanism="k", neighbourhood="k-anonymity",
                                  source_fingerprint="fp1"))



def test_budget_is_per_dataset_name_not_per_content(tmp_path):
    """Releases of a dataset that changed (by one edge, say) draw on the same budget."""
    ledger = tmp_path / "l.json"
    acc = Accountant(1.0, dataset="social", neighbourhood="edge", ledger=ledger)
    acc.spend(_rel(0.6, ds="content-hash-before"))
    again = Accountant(1.0, dataset="social", neighbourhood="edge", ledger=ledger)
    with pytest.raises(PrivacyBudgetExceeded):
        again.spend(_rel(0.6, ds="content-hash-after-one-more-edge"))


def test_one_rule_set_for_json_and_neo4j_ledgers():
    from graphanon.io import neo4j as io_neo4j

    assert io_neo4j.charge_epsilon is charge_epsilon  # the Neo4j ledger has no copy
    pers = Release.create(mechanism="p", neighbourhood="personalized-node",
                          epsilon_summary={"min": 0.1, "median": 0.2, "max": 0.4},
                          source_fingerprint="fp1")
    kanon = Release.create(mechanism="k", neighbourhood="k-anonymity", source_fingerprint="fp1")
    # a node-level ε costs twice on an edge budget (one edge = two node steps)
    cases = [(_rel(0.3, nb="node"), "edge", 0.6), (_rel(0.3, nb="node"), "node", 0.3),
             (_rel(0.2), "edge", 0.2), (pers, "edge", 0.8), (pers, "node", 0.4),
             (kanon, "edge", None), (kanon, "node", None)]
    for rel, budget_nb, want in cases:
        # a Release and its record are charged alike
        assert charge_epsilon(rel, budget_nb) == want
        assert charge_epsilon(rel.to_dict(), budget_nb) == want
        if want is not None:
            acc = Accountant(1.0, dataset="fp1", neighbourhood=budget_nb)
            assert acc.spend(rel).epsilon == want
    pers_edge = Release.create(mechanism="p", neighbourhood="personalized-edge",
                               epsilon_summary={"min": 0.1, "median": 0.2, "max": 0.4},
                               source_fingerprint="fp1")
    for rel in (_rel(0.2), pers_edge):
        with pytest.raises(InvalidParameterError, match="no node-level guarantee"):
            charge_epsilon(rel, "node")
    with pytest.raises(InvalidParameterError, match="budget_neighbourhood"):
        charge_epsilon(_rel(0.2), "graph")
    assert fits_budget(0.9, 0.1, 1.0) and not fits_budget(0.9, 0.11, 1.0)
    assert fits_budget(sum([0.1] * 9), 0.1, 1.0)


def test_parallel_composition_only_when_disjoint():
    acc = Accountant(1.0, dataset="fp1")
    entries = acc.spend_parallel([_rel(0.5), _rel(0.7)], [np.arange(10), np.arange(10, 20)])
    assert acc.spent == pytest.approx(0.7)
    assert entries[0].composition.startswith("parallel")
    acc2 = Accountant(2.0, dataset="fp1")
    entries = acc2.spend_parallel([_rel(0.5), _rel(0.7)], [np.arange(10), np.arange(9, 20)])
    assert acc2.spent == pytest.approx(1.2)
    assert "overlap" in entries[0].composition
    with pytest.raises(PrivacyBudgetExceeded):
        Accountant(1.0, dataset="fp1").spend_parallel(
            [_rel(0.6), _rel(0.6)], [[1, 2], [2, 3]])


def test_parallel_composition_refuses_an_empty_domain():
    """Two releases of the whole of an edgeless graph listing the edges they read (none)
    would look disjoint; a domain is what a release may read, never empty."""
    acc = Accountant(2.0, dataset="fp1")
    with pytest.raises(InvalidParameterError, match="domain of release 1 is empty"):
        acc.spend_parallel([_rel(1.0), _rel(1.0)], [[], []])
    assert acc.spent == 0


def test_validation(tmp_path):
    with pytest.raises(InvalidParameterError, match="'budget' parameter of Accountant"):
        Accountant(0.0, dataset="x")
    with pytest.raises(InvalidParameterError, match="'neighbourhood' parameter of Accountant"):
        Accountant(1.0, dataset="x", neighbourhood="personalized-edge")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidParameterError, match="unreadable"):
        Accountant(1.0, dataset="x", ledger=bad)
    acc = Accountant(1.0, dataset="x")
    assert acc.spend_epsilon(0.25, mechanism="t").epsilon == 0.25
    assert acc.can_spend(0.75) and not acc.can_spend(0.76)


def test_node_dp_at_the_same_eps_is_not_edge_dp():
    """Why a node-level ε is charged twice on an edge budget: an edge change is two node
    changes (remove an endpoint with its edges, add it back with one more edge), so ε-node-DP
    gives 2ε-edge-DP by group privacy. (The θ-projected 1K histogram over degrees 1..θ moved
    by at most its node sensitivity on 140,000 random edge changes; the charge rests on the
    group-privacy argument, not on a counterexample.)"""
    from graphanon.graph import Graph
    from graphanon.privacy.sensitivity_audit import neighbouring_pairs

    G = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n_nodes=4)
    H = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]))  # the edge (2, 3) added
    # G -> remove node 2 -> add node 2 back with edges to 1 and 3 = H: two node steps
    mid = [M for M, desc, _ in neighbouring_pairs(G, neighbourhood="node")
           if desc.startswith("remove node 2 (")]
    assert mid and mid[0].n_edges == 1 and H.n_edges == G.n_edges + 1
    assert charge_epsilon(_rel(1.0, nb="node"), "edge") == NODE_TO_EDGE * 1.0 == 2.0


def test_parallel_composition_keeps_the_former_keyword():
    acc = Accountant(1.0, dataset="fp1")
    with pytest.warns(DeprecationWarning, match="domains"):
        acc.spend_parallel([_rel(0.5), _rel(0.7)], units=[np.arange(10), np.arange(10, 20)])
    assert acc.spent == pytest.approx(0.7)
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidParameterError, match="once"):
        acc.spend_parallel([_rel(0.1)], [np.arange(3)], units=[np.arange(3)])


# ---------------------------------------------------------------------- dataset names
def test_one_dataset_one_budget_whatever_the_spelling(tmp_path):
    """Five spellings of one name were five budgets (four of five charges of ε = 1 went
    through against a budget of 2). Names are keys after NFKC and case folding."""
    import unicodedata

    ledger = tmp_path / "l.json"
    spellings = ["grqc", "GRQC", "ｇｒｑｃ", "Grqc"]
    outcomes = []
    for name in spellings:
        try:
            Accountant(2.0, dataset=name, ledger=ledger).spend(_rel(1.0))
            outcomes.append("charged")
        except PrivacyBudgetExceeded:
            outcomes.append("refused")
    assert outcomes == ["charged", "charged", "refused", "refused"]
    assert list(json.loads(ledger.read_text())["datasets"]) == ["grqc"]
    nfc, nfd = (unicodedata.normalize(f, "café") for f in ("NFC", "NFD"))
    assert nfc != nfd
    Accountant(1.0, dataset=nfc, ledger=ledger).spend(_rel(1.0))
    with pytest.raises(PrivacyBudgetExceeded):
        Accountant(1.0, dataset=nfd, ledger=ledger).spend(_rel(1.0))
    # inner blanks are allowed: any run of blanks is one space
    assert Accountant(1.0, dataset="social \u00a0 prod").dataset == "social prod"


@pytest.mark.parametrize("bad", ["grqc\t", " grqc", "grqc ", "\u3000", "", "gr\u200bqc",
                                 "ds-" + "ab" * 10])
def test_names_with_outer_blanks_or_invisible_characters_are_refused(tmp_path, bad):
    with pytest.raises(InvalidParameterError, match="dataset"):
        Accountant(1.0, dataset=bad, ledger=tmp_path / "l.json")
    assert not list(tmp_path.iterdir())


def _ledger_with(path, *names):
    path.write_text(json.dumps({"format": "graphanon-ledger/1", "datasets": {
        n: {"budget": 2.0, "neighbourhood": "edge", "entries": [
            {"release_id": f"r{i}", "mechanism": "m", "neighbourhood": "edge", "epsilon": 1.0,
             "composition": "sequential", "created_at": "t"}]}
        for i, n in enumerate(names)}}))


def test_an_older_ledger_keeps_its_spelling_and_two_spellings_are_refused(tmp_path):
    one = tmp_path / "one.json"
    _ledger_with(one, "GRQC")
    acc = Accountant(2.0, dataset="grqc", ledger=one)
    assert acc.spent == 1.0
    acc.spend(_rel(1.0))  # charged to the stored 'GRQC', not to a new budget
    assert list(json.loads(one.read_text())["datasets"]) == ["GRQC"]
    with pytest.raises(PrivacyBudgetExceeded):
        acc.spend(_rel(0.1))
    two = tmp_path / "two.json"
    _ledger_with(two, "GRQC", "grqc\t")
    before = two.read_bytes()
    for act in (lambda: Accountant(5.0, dataset="grqc", ledger=two),
                lambda: Accountant.open(two, dataset="grqc"),
                lambda: JsonLedger(two).set_budget("grqc", 5.0)):
        with pytest.raises(InvalidParameterError, match=r"2 budgets for dataset 'grqc'.*not "
                                                        r"merged"):
            act()
    assert two.read_bytes() == before
    Accountant(1.0, dataset="other", ledger=two).spend(_rel(0.5))  # other datasets work


def test_the_cli_says_when_it_creates_a_ledger_and_where_it_charges(tmp_path, monkeypatch,
                                                                    capsys):
    """A relative --ledger run from another folder silently started a fresh budget. Now
    creating a ledger is printed with its absolute path, and so is every charge."""
    from graphanon.cli import main

    g = tmp_path / "g.txt"
    g.write_text("1 2\n2 3\n3 1\n")
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        for run in range(2):
            assert main(["release-dk", str(g), "--d", "1", "--epsilon", "1", "--max-degree",
                         "5", "--out", f"o{run}.tsv", "--ledger", "l.json", "--dataset",
                         "GrQc", "--budget", "2"]) == 0
            captured = capsys.readouterr()
            text = captured.out + captured.err
            where = tmp_path / folder / "l.json"
            created = (f"created ledger {where} for dataset 'grqc' with budget ε=2 (edge-DP)"
                       in captured.err)
            assert created == (run == 0), text
            assert (f"charged ε=1 to dataset 'grqc' in ledger {where} (spent {run + 1} of 2)"
                    in text)


def test_ledger_cli_sets_a_budget_once_and_changes_it_on_purpose(tmp_path, capsys):
    from graphanon.cli import main

    ledger = tmp_path / "l.json"
    assert main(["ledger", "set-budget", str(ledger), "d", "--epsilon-total", "3"]) == 2
    assert "no budget for dataset 'd'" in capsys.readouterr().err and not ledger.exists()
    assert main(["ledger", "budget", str(ledger), "D", "--epsilon-total", "2",
                 "--neighbourhood", "node"]) == 0
    assert f"created ledger {ledger} for dataset 'd'" in capsys.readouterr().out
    assert main(["ledger", "budget", str(ledger), "d", "--epsilon-total", "3"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "graphanon ledger set-budget" in err
    assert main(["ledger", "set-budget", str(ledger), "d", "--epsilon-total", "3"]) == 0
    assert "from ε=2 to ε=3" in capsys.readouterr().out
    assert main(["ledger", "show", str(ledger), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["budgets"] == [{"dataset": "d", "neighbourhood": "node",
                                 "epsilon_total": 3.0, "epsilon_spent": 0}]
    assert json.loads(ledger.read_text())["datasets"]["d"]["budget_changes"][0][
        "epsilon_total_before"] == 2.0
