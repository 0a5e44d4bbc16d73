"""``graphanon randomized-response`` through ``graphanon.cli.main``."""

from __future__ import annotations

import json

from graphanon.cli import main
from graphanon.datasets import load_adult_sample
from graphanon.io.files import read_bipartite, write_bipartite


def _input(tmp_path):
    path = tmp_path / "in.tsv"
    B = load_adult_sample()
    write_bipartite(B, path)
    (tmp_path / "users.txt").write_text("".join(f"{u}\n" for u in B.user_ids))
    (tmp_path / "features.txt").write_text("".join(f"{f}\n" for f in B.feature_ids))
    return path


def _universe(tmp_path):
    return ["--users", str(tmp_path / "users.txt"), "--features", str(tmp_path / "features.txt")]


def test_cli_writes_output_and_report(tmp_path, capsys):
    src = _input(tmp_path)
    out, rep = tmp_path / "out.tsv", tmp_path / "rep.json"
    code = main(["-q", "randomized-response", str(src), "--epsilon", "5", "--neighbourhood", "edge",
                 "--out", str(out), "--report", str(rep), "--seed", "3",
                 "--noise", "numpy-insecure", "--keep-ids", *_universe(tmp_path)])
    assert code == 0
    report = json.loads(rep.read_text())
    assert set(report["not_private"]["metrics"]) == {"jaccard", "suppressed", "created"}
    assert "metrics" not in report and "kept" not in report  # truth-derived numbers are nested
    rel = report["release"]
    assert rel["mechanism"] == "randomized-response" and rel["neighbourhood"] == "edge"
    assert rel["epsilon"] == 5.0 and rel["seed"] == 3 and rel["backend"] == "numpy-insecure"
    B = read_bipartite(out)
    assert B.n_edges == report["output_edges"]
    # same seed, same output
    out2, rep2 = tmp_path / "out2.tsv", tmp_path / "rep2.json"
    main(["-q", "randomized-response", str(src), "--epsilon", "5", "--out", str(out2),
          "--report", str(rep2), "--seed", "3", "--noise", "numpy-insecure", "--keep-ids",
          *_universe(tmp_path)])
    assert out2.read_bytes() == out.read_bytes()
    # by default users are published under keyed per-release pseudonyms
    out3, rep3 = tmp_path / "pub" / "o3.tsv", tmp_path / "r3.json"
    mapping = tmp_path / "op" / "m.tsv"
    assert main(["-q", "randomized-response", str(src), "--epsilon", "5", "--out", str(out3),
                 "--report", str(rep3), "--seed", "3", "--noise", "numpy-insecure",
                 "--pseudonym-map", str(mapping), *_universe(tmp_path)]) == 0
    P = read_bipartite(out3)
    assert P.n_edges == B.n_edges
    assert not set(P.user_ids.tolist()) & set(read_bipartite(src).user_ids.tolist())
    pairs = dict(line.split("\t") for line in mapping.read_text().splitlines()[1:])
    assert set(P.user_ids.tolist()) <= set(pairs.values())
    # the mapping may not be written next to the published output
    assert main(["-q", "randomized-response", str(src), "--epsilon", "5", "--out",
                 str(tmp_path / "o4.tsv"), "--report", str(tmp_path / "r4.json"),
                 "--pseudonym-map", str(tmp_path / "m.tsv"), *_universe(tmp_path)]) == 2
    assert "inside the folder" in capsys.readouterr().err
    assert not (tmp_path / "o4.tsv").exists()


def test_cli_secure_default_and_node_level(tmp_path):
    src = _input(tmp_path)
    out, rep = tmp_path / "o.tsv", tmp_path / "r.json"
    assert main(["-q", "randomized-response", str(src), "--epsilon", "200",
                 "--neighbourhood", "node",
                 "--out", str(out), "--report", str(rep), *_universe(tmp_path)]) == 0
    rel = json.loads(rep.read_text())["release"]
    assert rel["backend"] == "os-urandom" and rel["seed"] is None
    F = load_adult_sample().n_features
    assert rel["neighbourhood"] == "node" and rel["sensitivity"] == F


def test_cli_bad_input_exit_2_no_output(tmp_path, capsys):
    src = _input(tmp_path)
    out, rep = tmp_path / "o.tsv", tmp_path / "r.json"
    code = main(["randomized-response", str(src), "--epsilon", "-1", "--out", str(out),
                 "--report", str(rep), *_universe(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "The '--epsilon' option must be" in err and "Got -1.0 instead" in err
    assert "Traceback" not in err
    assert not out.exists() and not rep.exists()
    code = main(["randomized-response", str(src), "--epsilon", "1", "--seed", "1",
                 "--out", str(out), "--report", str(rep), *_universe(tmp_path)])
    assert code == 2 and "--seed" in capsys.readouterr().err
    assert main(["randomized-response", str(tmp_path / "missing.tsv"), "--epsilon", "1",
                 "--out", str(out), "--report", str(rep), *_universe(tmp_path)]) == 2
    assert not out.exists() and not rep.exists()
    # without the public universe: refused before anything runs
    assert main(["randomized-response", str(src), "--epsilon", "1", "--out", str(out),
                 "--report", str(rep)]) == 2
    assert "--users" in capsys.readouterr().err
    assert not out.exists() and not rep.exists()
