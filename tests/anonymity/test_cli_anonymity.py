"""CLI: smooth-k, mondrian, bipartite-from-table (file contract, report keys, exit codes)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from graphanon.anonymity import verify_smooth_k
from graphanon.cli import main
from graphanon.errors import DataDependentFeaturesWarning
from graphanon.io.files import read_bipartite

PUBLIC_KEYS = {"k", "variant", "n_edges_out", "release", "user_ids"}
PRIVATE_KEYS = {"n_users", "n_features", "n_edges_in", "jaccard", "suppressed", "created",
                "n_clusters", "min_cluster_size", "seconds", "verify_smooth_k"}


def _unpseudonymize(A, B, release_id):  # type: ignore[no-untyped-def]
    """The operator's view: pseudonyms mapped back with the key and the release id."""
    from graphanon.graph import BipartiteGraph
    from graphanon.privacy.pseudonyms import pseudonymize

    names = dict(zip(pseudonymize(B.user_ids, scope=release_id).tolist(),
                     B.user_ids.tolist(), strict=True))
    r, c = A.edges()
    return BipartiteGraph.from_pairs([names[u] for u in A.user_ids[r]], A.feature_ids[c])


def _write_input(path: Path, n: int = 60, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    lines = ["# a comment"]
    for u in range(n):
        for f in np.flatnonzero(rng.random(12) < 0.3):
            lines.append(f"user {u}\tfeat-{f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_smooth_k_end_to_end(tmp_path: Path) -> None:
    inp = _write_input(tmp_path / "in.tsv")
    (tmp_path / "pub").mkdir()
    out, rep = tmp_path / "pub" / "out.tsv", tmp_path / "pub" / "r.json"
    clu = tmp_path / "clusters.tsv"  # operator material: not beside the output
    for variant in ("smooth", "suppress"):
        code = main(["-q", "smooth-k", str(inp), "--k", "4", "--variant", variant, "--seed", "3",
                     "--out", str(out), "--report", str(rep), "--clusters", str(clu)])
        assert code == 0
        report = json.loads(rep.read_text())
        priv = report["not_private"]
        assert PUBLIC_KEYS <= report.keys() and PRIVATE_KEYS <= priv.keys()
        assert not (PRIVATE_KEYS - {"n_clusters"}) & report.keys()
        assert report["variant"] == variant and report["seed"] == 3
        assert priv["verify_smooth_k"]["ok"] is True
        assert abs(priv["jaccard"] + priv["suppressed"] + priv["created"] - 1) < 1e-9
        B, A = read_bipartite(inp), read_bipartite(out)
        assert not set(A.user_ids.tolist()) & set(B.user_ids.tolist())  # pseudonyms
        A = _unpseudonymize(A, B, report["release"]["release_id"])
        assert verify_smooth_k(B, A, 4).ok  # checked again from the files
        assert "cluster" in clu.read_text().splitlines()[0]
        # rows in pseudonym order, not in the order of the real ids (which would undo them)
        written = [ln.split("\t")[0] for ln in out.read_text().splitlines()
                   if ln and not ln.startswith("#")]
        assert written == sorted(written)


def test_smooth_k_sharded(tmp_path: Path) -> None:
    inp = _write_input(tmp_path / "in.tsv", n=200)
    code = main(["-q", "smooth-k", str(inp), "--k", "3", "--shard-size", "50", "--seed", "1",
                 "--out", str(tmp_path / "o.tsv"), "--report", str(tmp_path / "r.json")])
    assert code == 0
    assert json.loads((tmp_path / "r.json").read_text())["shard_size"] == 50


def test_mondrian_cli(tmp_path: Path) -> None:
    inp = _write_input(tmp_path / "in.tsv")
    code = main(["-q", "mondrian", str(inp), "--k", "5", "--out", str(tmp_path / "o.tsv"),
                 "--report", str(tmp_path / "r.json")])
    assert code == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert PUBLIC_KEYS <= report.keys() and report["not_private"]["created"] == 0.0
    # --keep-ids publishes the real ids, with a warning
    assert main(["-q", "mondrian", str(inp), "--k", "5", "--out", str(tmp_path / "k.tsv"),
                 "--report", str(tmp_path / "k.json"), "--keep-ids"]) == 0
    kept = read_bipartite(tmp_path / "k.tsv")
    assert verify_smooth_k(read_bipartite(inp), kept, 5).ok


def test_bad_input_exit_2_and_no_output(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    inp = _write_input(tmp_path / "in.tsv", n=10)
    out, rep = tmp_path / "o.tsv", tmp_path / "r.json"
    for args in (["--k", "1"], ["--k", "50"], ["--k", "3", "--alpha", "2"]):
        code = main(["-q", "smooth-k", str(inp), *args, "--out", str(out), "--report", str(rep)])
        assert code == 2
        err = capsys.readouterr().err
        assert err.startswith("graphanon: error:") and "Traceback" not in err
        assert not out.exists() and not rep.exists()
    code = main(["-q", "smooth-k", str(tmp_path / "missing.tsv"), "--k", "2", "--out", str(out),
                 "--report", str(rep)])
    assert code == 2 and not out.exists()


def test_bipartite_from_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("id,color,size,tags\na,red,1,x;y\nb,blue,5,y\nc,red,9,\n")
    out = tmp_path / "b.tsv"
    code = main(["-q", "bipartite-from-table", str(csv), "--id-column", "id", "--split", "tags=;",
                 "--out", str(out)])
    assert code == 0
    B = read_bipartite(out)
    # numeric values one-hot by default (each user's features from the user's own row)
    assert set(B.feature_ids.tolist()) == {"color=red", "color=blue", "size=1", "size=5",
                                           "size=9", "tags=x", "tags=y"}
    # the data's median as a cut point: written, with a warning
    with warnings.catch_warnings():
        warnings.simplefilter("default", DataDependentFeaturesWarning)
        code = main(["-q", "bipartite-from-table", str(csv), "--columns", "size",
                     "--binarize", "median", "--out", str(out)])
    assert code == 0 and set(read_bipartite(out).feature_ids.tolist()) == {"size>5"}
    err = capsys.readouterr().err
    assert err.startswith("graphanon: warning:") and "median appears" in err
    assert main(["-q", "bipartite-from-table", str(csv), "--split", "tags", "--out",
                 str(tmp_path / "x.tsv")]) == 2


@pytest.mark.parametrize("command", [["mondrian"],
                                     ["smooth-k", "--variant", "suppress", "--seed", "1"]])
def test_published_header_counts_only_what_the_rows_show(tmp_path: Path,
                                                         command: list[str]) -> None:
    """A feature held by one user is always suppressed, and a user whose row is suppressed
    is in no line: the header must not count either (it would publish that the input holds
    a value that appears nowhere), and the report keeps the input's counts under
    not_private."""
    inp = tmp_path / "in.tsv"
    rows = [f"u{u}\tcommon\n" for u in range(8)] + ["u8\trare_diagnosis\n", "u9\tlonely\n"]
    inp.write_text("".join(rows))
    out, rep = tmp_path / "out.tsv", tmp_path / "r.json"
    assert main(["-q", *command, str(inp), "--k", "4", "--out", str(out),
                 "--report", str(rep)]) == 0
    lines = [ln.split("\t") for ln in out.read_text().splitlines() if not ln.startswith("#")]
    header = next(ln for ln in out.read_text().splitlines() if ln.startswith("# Users:"))
    users, features = {u for u, _ in lines}, {f for _, f in lines}
    assert "rare_diagnosis" not in features
    assert header == f"# Users: {len(users)} Features: {len(features)} Edges: {len(lines)}"
    report = json.loads(rep.read_text())
    assert "n_users" not in report and "n_features" not in report
    assert report["not_private"]["n_users"] == 10
    assert report["not_private"]["n_features"] == 3
