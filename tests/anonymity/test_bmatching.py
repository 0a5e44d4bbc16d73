"""Adaptive anonymity via b-matching (003_*.txt): algorithms, verification, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphanon.anonymity.bmatching import (
    MASKED,
    agglomerative_k_anonymity,
    b_matching_anonymity,
    delta_from_degree,
    released_cells,
    symmetric_b_matching_anonymity,
    verify_adaptive_anonymity,
)
from graphanon.cli import main
from graphanon.errors import InvalidParameterError

# Figure 1/2 of the paper: n = 6, d = 4, δ = 2
FIG = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 1],
                [1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1]])


def test_paper_figure_2_eight_stars():
    r = b_matching_anonymity(FIG, delta=2, rng=np.random.default_rng(0))
    assert r.stars == 8  # the paper's optimum (k-anonymity needs 10)
    assert r.verification is not None and r.verification.ok
    assert r.utility == pytest.approx(1 - 8 / 24)


@pytest.mark.parametrize("solver", ["ortools", "highs"])
def test_solvers_agree_and_verify(solver):
    X = np.random.default_rng(3).integers(0, 2, size=(60, 12))
    r = b_matching_anonymity(X, delta=4, rng=np.random.default_rng(1), solver=solver,
                             epsilons=(0.5, 0.01))
    assert r.verification.ok and r.solver == solver
    assert r.stars <= X.size


def test_adaptive_levels_and_permutation():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, size=(80, 10))
    delta = rng.integers(1, 7, size=80)
    r = b_matching_anonymity(X, delta=delta, rng=np.random.default_rng(2))
    assert r.verification.ok
    assert sorted(r.owner.tolist()) == list(range(80))
    assert not np.array_equal(r.owner, np.arange(80))  # rows are shuffled
    Y = r.in_original_order()
    known = Y != MASKED
    assert np.array_equal(Y[known], X[known])  # only suppression, never a changed value
    v = verify_adaptive_anonymity(X, r.released, delta, owner=r.owner)
    assert v.ok and v.perfect_matching and v.min_slack >= 0


def test_symmetric_release_satisfies_lemma_4_5_hypothesis():
    X = np.random.default_rng(11).integers(0, 2, size=(50, 9))
    r = symmetric_b_matching_anonymity(X, delta=3, rng=np.random.default_rng(0),
                                       epsilons=(0.5, 0.05))
    assert r.verification.ok and r.verification.symmetric_checked
    assert "Lemma 4.5" in r.guarantee and r.method == "symmetric-b-matching"


def test_agglomerative_clusters_are_k_anonymous():
    X = np.random.default_rng(4).integers(0, 2, size=(40, 8))
    r = agglomerative_k_anonymity(X, delta=5, rng=np.random.default_rng(0))
    _, counts = np.unique(r.released, axis=0, return_counts=True)
    assert counts.min() >= 5 and r.verification.ok


def test_categorical_codes():
    X = np.random.default_rng(6).integers(0, 4, size=(40, 5))
    for fn in (b_matching_anonymity, agglomerative_k_anonymity):
        r = fn(X, delta=3, rng=np.random.default_rng(0))
        assert r.verification.ok


def test_delta_from_degree_formula():
    f = np.array([0, 1, 3, 8, 20, 100])
    d = delta_from_degree(f, delta=6)
    lf = np.floor(np.log(np.maximum(f, 1)))
    assert np.array_equal(d, np.clip(6 - (lf.max() - lf), 1, 6))
    assert d[-1] == 6


def test_bad_parameters():
    X = FIG
    with pytest.raises(InvalidParameterError, match="'delta' parameter"):
        b_matching_anonymity(X, delta=7, rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="user 1 has δ=0"):
        b_matching_anonymity(X, delta=np.array([1, 0, 1, 1, 1, 1]), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="'rng'"):
        b_matching_anonymity(X, delta=2, rng=0)


def test_released_cells_and_cli(tmp_path):
    lines = []
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(30, 6))
    for i, j in zip(*np.nonzero(X), strict=True):
        lines.append(f"u{i}\tf{j}")
    inp = tmp_path / "in.tsv"
    inp.write_text("\n".join(lines) + "\n")
    out, rep = tmp_path / "out.tsv", tmp_path / "r.json"
    assert main(["-q", "b-anonymize", str(inp), "--delta", "3", "--seed", "1",
                 "--out", str(out), "--report", str(rep)]) == 0
    report = json.loads(rep.read_text())
    priv = report["not_private"]
    assert priv["verification"]["ok"] and priv["delta_max"] == 3
    assert report["differentially_private"] is False and "owner" not in report
    # what is read off the input stays apart from the publishable part
    assert not {"n", "d", "stars", "utility", "seconds", "delta_median", "verification",
                "input", "iterations"} & report.keys()
    assert {"n", "d", "stars", "utility", "seconds_total", "input"} <= priv.keys()
    cells = [ln.split("\t") for ln in out.read_text().splitlines()]
    assert all(c[2] in ("1", "*") for c in cells)
    assert sum(c[2] == "*" for c in cells) == report["masked_cells"]
    # delta file, symmetric, baseline
    dfile = tmp_path / "d.tsv"
    users = sorted({ln.split("\t")[0] for ln in lines}, key=lambda u: int(u[1:]))
    dfile.write_text("".join(f"{u}\t{2 + k % 3}\n" for k, u in enumerate(users)))
    for method in ("b-matching", "symmetric-b-matching", "k-anonymity"):
        assert main(["-q", "b-anonymize", str(inp), "--delta-file", str(dfile), "--method",
                     method, "--out", str(out), "--report", str(rep)]) == 0
        report = json.loads(rep.read_text())
        assert report["not_private"]["verification"]["ok"] and report["method"] == method


def test_cli_errors_leave_no_output(tmp_path, capsys):
    out = tmp_path / "out.tsv"
    inp = tmp_path / "in.tsv"
    inp.write_text("a\tx\nb\ty\n")
    code = main(["b-anonymize", str(inp), "--delta", "5", "--out", str(out),
                 "--report", str(tmp_path / "r.json")])
    assert code == 2 and not out.exists()
    assert "The '--delta' option must be" in capsys.readouterr().err
    dfile = tmp_path / "d.tsv"
    dfile.write_text("a\t2\n")
    code = main(["b-anonymize", str(inp), "--delta-file", str(dfile), "--out", str(out),
                 "--report", str(tmp_path / "r.json")])
    assert code == 2 and not out.exists()


def test_released_cells_format():
    r = b_matching_anonymity(FIG, delta=2, rng=np.random.default_rng(0))
    rows, _cols, masked = released_cells(r)
    assert masked.sum() == r.stars
    assert ((r.released == 1).sum() + r.stars) == rows.size


def test_recorded_seed_does_not_reproduce_the_secret_permutation():
    """The row permutation hides which released row is whose; a seed in a report must not
    regenerate it (it comes from the OS CSPRNG)."""
    X = np.random.default_rng(1).integers(0, 2, size=(40, 6)).astype(np.int32)
    a = b_matching_anonymity(X, delta=3, rng=np.random.default_rng(9))
    b = b_matching_anonymity(X, delta=3, rng=np.random.default_rng(9))
    assert a.stars == b.stars  # the anonymization itself is reproducible
    assert not np.array_equal(a.owner, b.owner)
    assert not np.array_equal(a.owner, np.random.default_rng(9).permutation(40))


# ---------------------------------------------------------------------- issue 16 part 5
def _with_duplicates(seed: int = 0) -> np.ndarray:
    """Rows with large groups of identical copies (as UCI Adult has) and unique rows."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2, size=(12, 10))
    X = np.concatenate([np.repeat(base[:4], [15, 11, 6, 3], axis=0),
                        rng.integers(0, 2, size=(60, 10))])
    return X[rng.permutation(X.shape[0])]


def test_self_matched_groups_form_circulants_inside_their_group():
    from graphanon.anonymity.bmatching import _self_matched_groups

    X = _with_duplicates()
    need = np.full(X.shape[0], 9, dtype=np.int64)
    rest, (src, dst) = _self_matched_groups(X.astype(np.int32), need)
    _, inv, cnt = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    fixed = np.setdiff1d(np.arange(X.shape[0]), rest)
    assert set(cnt[inv[fixed]]) == {15, 11}  # groups of > 9 copies only
    assert np.all(inv[src] == inv[dst]) and np.all(src != dst)
    assert len(set(zip(src.tolist(), dst.tolist(), strict=True))) == src.size
    assert np.all(np.bincount(src, minlength=X.shape[0])[fixed] == 9)
    assert np.all(np.bincount(dst, minlength=X.shape[0])[fixed] == 9)
    # per-user levels: a group is fixed only if its largest need fits inside it
    need[fixed[0]] = 14
    rest2, _ = _self_matched_groups(X.astype(np.int32), need)
    assert rest2.size == rest.size + cnt[inv[fixed[0]]]


@pytest.mark.parametrize(("duplicates", "start"),
                         [("group", "nearest"), ("group", "matching"), ("keep", "nearest"),
                          ("keep", "matching")])
def test_duplicate_groups_and_nearest_start_verify(duplicates, start):
    X = _with_duplicates(1)
    delta = np.where(np.arange(X.shape[0]) % 3 == 0, 10, 4)
    r = b_matching_anonymity(X, delta=delta, rng=np.random.default_rng(0),
                             duplicates=duplicates, start=start)
    assert r.verification is not None and r.verification.ok
    # a group is self-matched when it has more copies than its largest need δ − 1
    _, inv, cnt = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    top = np.zeros(cnt.size, dtype=np.int64)
    np.maximum.at(top, inv, delta - 1)
    fixed = cnt[inv] > top[inv]
    assert r.extra["self_matched_rows"] == (0 if duplicates == "keep" else int(fixed.sum()))
    assert fixed.sum() >= 26
    if duplicates == "group":  # rows of a self-matched group are released unmasked
        Y = r.in_original_order()
        assert np.all(Y[fixed] == X[fixed])


def test_new_defaults_beat_the_paper_sweep_on_the_adult_sample():
    """The shipped 2,000-row Adult sample at δ = 10: the default (duplicate groups matched
    inside themselves, nearest-neighbour start, short ε sweep) has fewer stars than the
    paper's full sweep from the W = 1 matching, with far fewer solves."""
    from graphanon.anonymity.bmatching import DEFAULT_EPSILONS
    from graphanon.datasets import load_adult_sample

    X = load_adult_sample().to_dense().astype(np.int32)
    new = b_matching_anonymity(X, delta=10, rng=np.random.default_rng(0))
    old = b_matching_anonymity(X, delta=10, rng=np.random.default_rng(0),
                               epsilons=DEFAULT_EPSILONS, max_iter=5, duplicates="keep",
                               start="matching")
    assert new.verification.ok and old.verification.ok
    assert new.stars < old.stars
    assert new.iterations <= 6 < old.iterations


def test_parallel_kernels_match_brute_force():
    from graphanon.anonymity import _bmatch_kernels as K
    from graphanon.anonymity._bmatch_encode import _pack

    rng = np.random.default_rng(2)
    X = rng.random((300, 70)) < 0.3
    Y = rng.random((300, 70)) < 0.3
    M = rng.random((300, 70)) < 0.2
    xb, yb, mb = _pack(X), _pack(Y & M), _pack(M)
    dx, dy = K.compatibility_degrees(xb, yb, mb)
    ok = (~((X[:, None, :] != (Y & M)[None, :, :]) & M[None, :, :])).all(axis=2)
    assert np.array_equal(dx, ok.sum(axis=1)) and np.array_equal(dy, ok.sum(axis=0))
    nb = K.knn_hamming(xb, 7, 70)
    D = (X[:, None, :] != X[None, :, :]).sum(axis=2)
    np.fill_diagonal(D, 10**6)
    kth = np.sort(D, axis=1)[:, 6]
    assert np.all(D[np.arange(300)[:, None], nb] <= kth[:, None])
    assert all(len(set(row)) == 7 and i not in row for i, row in enumerate(nb.tolist()))
    codes = X.astype(np.int32)
    W = rng.random((300, 70))
    src, dst = rng.integers(0, 300, 500), rng.integers(0, 300, 500)
    want = ((codes[src] != codes[dst]) * W[src]).sum(axis=1)
    assert np.allclose(K.edge_costs(codes, W, src, dst), want)


def test_cli_delta_from_degree_matches_users_to_nodes_by_id(tmp_path, capsys):
    users = tmp_path / "u.tsv"
    users.write_text("a\tx\na\ty\nb\tx\nc\ty\nd\tx\ne\ty\n")
    graph = tmp_path / "g.txt"
    graph.write_text("a b\nb c\nc d\nd e\na c\n")
    args = ["-q", "b-anonymize", str(users), "--delta-from-degree", str(graph),
            "--delta-max", "2", "--out", str(tmp_path / "m.tsv"), "--report",
            str(tmp_path / "m.json")]
    assert main(args) == 0
    assert json.loads((tmp_path / "m.json").read_text())["not_private"]["verification"]["ok"]
    graph.write_text("a b\nb c\n")  # d and e are not nodes of the graph
    (tmp_path / "m.tsv").unlink()
    assert main(args) == 2
    assert "unknown node id 'd'" in capsys.readouterr().err
    assert not (tmp_path / "m.tsv").exists()




def test_cli_method_options_and_their_old_flags(tmp_path, capsys):
    """--method chooses the algorithm; an option of another method is refused naming both
    (nothing written); the old --symmetric / --baseline k-anonymity still work until 0.3.0
    with a warning, and contradicting --method is refused."""
    inp = tmp_path / "in.tsv"
    inp.write_text("".join(f"u{i}\tf{j}\n" for i in range(12) for j in range(4)
                           if (i * 7 + j * 3) % 5 < 2))
    out, rep = tmp_path / "out.tsv", tmp_path / "r.json"
    base = ["-q", "b-anonymize", str(inp), "--delta", "3", "--out", str(out), "--report",
            str(rep)]
    for bad, message in (
            (["--method", "k-anonymity", "--candidates", "4"],
             "The '--candidates' option applies to --method b-matching|symmetric-b-matching "
             "only (here --method k-anonymity)"),
            (["--time-limit", "5"], "The '--time-limit' option applies to --method "
                                    "symmetric-b-matching only (here --method b-matching)"),
            (["--candidates", "0"], "The '--candidates' option must be an int in [1, "),
            (["--method", "b-matching", "--symmetric"], "choose different methods"),
            (["--method", "symmetric-b-matching", "--baseline", "k-anonymity"],
             "choose different methods")):
        assert main([*base, *bad]) == 2, bad
        assert message in capsys.readouterr().err, bad
        assert not out.exists() and not rep.exists()
    for old, method in ((["--symmetric"], "symmetric-b-matching"),
                        (["--baseline", "k-anonymity"], "k-anonymity")):
        assert main([*base, *old]) == 0
        err = capsys.readouterr().err
        assert f"is now --method {method}" in err and "0.3.0" in err
        assert json.loads(rep.read_text())["method"] == method
    assert main([*base, "--method", "symmetric-b-matching", "--time-limit", "30",
                 "--max-iter", "1"]) == 0
    assert json.loads(rep.read_text())["not_private"]["verification"]["ok"]


def test_adaptive_anonymize_declares_its_parameters():
    """The API refuses an option of another method and bad values, naming the parameter;
    max_iter=None keeps each algorithm's own default."""
    from graphanon.anonymity.bmatching import B_ANONYMIZE, adaptive_anonymize
    from graphanon.errors import InvalidParameterError

    X = np.random.default_rng(1).integers(0, 2, size=(15, 5))
    rng = np.random.default_rng(0)
    assert B_ANONYMIZE.names == ("method", "candidates", "max_iter", "time_limit", "verify")
    with pytest.raises(InvalidParameterError, match="'candidates' parameter of "
                                                    "adaptive_anonymize applies to"):
        adaptive_anonymize(X, delta=3, rng=rng, method="k-anonymity", candidates=4)
    with pytest.raises(InvalidParameterError, match="'time_limit' parameter"):
        adaptive_anonymize(X, delta=3, rng=rng, time_limit=0.0, method="symmetric-b-matching")
    with pytest.raises(InvalidParameterError, match="'method' parameter"):
        adaptive_anonymize(X, delta=3, rng=rng, method="greedy")
    a = adaptive_anonymize(X, delta=3, rng=np.random.default_rng(0))
    b = b_matching_anonymity(X, delta=3, rng=np.random.default_rng(0))
    assert a.stars == b.stars and a.iterations == b.iterations
