"""The distributed engine on a 2-worker LocalCluster: identity with the in-memory results,
CLI options, bad input and an unreachable scheduler."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import pyarrow as pa
import pyarrow.parquet as pq

from graphanon.anonymity import smooth_k_anonymity
from graphanon.cli import main
from graphanon.datasets import load_adult_sample
from graphanon.dk import dk_distribution
from graphanon.errors import InvalidParameterError
from graphanon.io.dk_tables import read_dk_table
from graphanon.io.files import read_bipartite, read_graph, write_bipartite

QUIET = lambda *a: None  # noqa: E731


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0")
    client = Client(lc)
    yield lc, client
    client.close()
    lc.close()


def _write_parts(folder: Path, cols: dict[str, np.ndarray], n_parts: int, seed: int = 0,
                 mask: np.ndarray | None = None) -> Path:
    folder.mkdir(parents=True)
    n = next(iter(cols.values())).size
    perm = np.random.default_rng(seed).permutation(n)
    for i, idx in enumerate(np.array_split(perm, n_parts)):
        table = {}
        for name, c in cols.items():
            vals = c[idx]
            if mask is not None and name == "target":
                table[name] = pa.array(vals.tolist(), mask=mask[idx])
            else:
                table[name] = vals
        pq.write_table(pa.table(table), folder / f"part-{i:03d}.parquet")
    return folder


@pytest.fixture(scope="module")
def adult_parts(tmp_path_factory):
    B = load_adult_sample()
    r, c = B.edges()
    folder = tmp_path_factory.mktemp("adult") / "in"
    _write_parts(folder, {"user": B.user_ids[r], "feature": B.feature_ids[c]}, 3)
    return B, folder


def _pairs(folder: Path, a: str, b: str) -> set:
    t = pq.read_table(folder)
    return set(zip(t.column(a).to_pylist(), t.column(b).to_pylist(), strict=True))


def _ref_pairs(res) -> set:
    A = res.anonymized
    r, c = A.edges()
    return set(zip(A.user_ids[r].tolist(), A.feature_ids[c].tolist(), strict=True))


@pytest.mark.parametrize(("shard_size", "variant", "postprocess"),
                         [(300, "smooth", "simple"), (700, "suppress", "paper"),
                          (None, "smooth", "simple")])
def test_smooth_k_identical_to_sharded_run(cluster, adult_parts, tmp_path, shard_size, variant,
                                          postprocess):
    from graphanon.distributed import smooth_k_distributed

    B, folder = adult_parts
    ref = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(7), restarts=2,
                             shard_size=shard_size, variant=variant, postprocess=postprocess,
                             progress=QUIET)
    res = smooth_k_distributed(str(folder), str(tmp_path / "out"), k=5,
                               rng=np.random.default_rng(7), client=cluster[1], restarts=2,
                               shard_size=shard_size, variant=variant, postprocess=postprocess,
                               clusters_out=str(tmp_path / "clusters"), progress=QUIET)
    assert _pairs(tmp_path / "out", "user", "feature") == _ref_pairs(ref)
    cl = dict(_pairs(tmp_path / "clusters", "user", "cluster"))
    assert [cl[u] for u in B.user_ids.tolist()] == ref.clusters.tolist()
    assert res.n_clusters == ref.n_clusters
    assert res.cluster_size_counts == ref.cluster_size_counts
    assert res.facility_cost == ref.facility_cost
    assert res.jaccard == pytest.approx(ref.jaccard, abs=1e-12)
    assert res.n_edges_in == B.n_edges and res.n_users == B.n_users
    assert res.n_edges_out == ref.anonymized.n_edges


def test_smooth_k_identity_independent_of_partitioning(cluster, tmp_path):
    """Integer ids, duplicate rows, identical users (signature ties), many partitions."""
    from graphanon.distributed import smooth_k_distributed
    from graphanon.graph import BipartiteGraph

    rng = np.random.default_rng(3)
    users = rng.integers(0, 400, 3000) * 7 + 1000
    feats = rng.integers(0, 12, 3000) * 3
    users = np.concatenate([users, users[:200], np.arange(50) + 10**6])  # dups, clones
    feats = np.concatenate([feats, feats[:200], np.zeros(50, np.int64)])
    B = BipartiteGraph.from_pairs(users, feats)
    ref = smooth_k_anonymity(B, k=4, rng=np.random.default_rng(11), restarts=2, shard_size=40,
                             progress=QUIET)
    folder = _write_parts(tmp_path / "in", {"user": users, "feature": feats}, 5, seed=1)
    for n_part in (1, 7):
        out = tmp_path / f"out{n_part}"
        smooth_k_distributed(str(folder), str(out), k=4, rng=np.random.default_rng(11),
                             client=cluster[1], restarts=2, shard_size=40,
                             n_partitions=n_part, chunks_per_task=3, progress=QUIET)
        assert _pairs(out, "user", "feature") == _ref_pairs(ref)


def _clustered_pairs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse clustered users (group pools held sparsely plus shared noise): the data on
    which the naive baseline wins some chunks under the paper's settings."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 30, 800)
    r, j = np.nonzero(rng.random((800, 30)) < 0.2)
    nn = rng.poisson(4, 800)
    w = 1.0 / np.arange(1, 3001) ** 1.1
    users = np.concatenate([r, np.repeat(np.arange(800), nn)])
    feats = np.concatenate([g[r] * 30 + j, 900 + rng.choice(3000, nn.sum(), p=w / w.sum())])
    return users, feats


@pytest.mark.parametrize(("ids", "settings"),
                         [("int", {"alpha": 0.5, "select": "cost", "refine": False}),
                          ("name", {}), ("digits", {}), ("mixed", {})])
def test_smooth_k_identity_with_split_fallback_and_canonical_ids(cluster, tmp_path, ids,
                                                                 settings):
    """Chunks where the MinHash baseline is kept, split clusters, and string columns in the
    canonical id encoding: digits-only text is read as integers (as the in-memory reader
    does), a column with some text in one part is text in every part."""
    from graphanon.distributed import smooth_k_distributed

    users, feats = _clustered_pairs(2)
    if ids == "name":
        users = np.array([f"user{x}" for x in users])
    elif ids in ("digits", "mixed"):
        users = users.astype(str)
        feats = feats.astype(str)
    folder = _write_parts(tmp_path / "in", {"user": users, "feature": feats}, 3, seed=4)
    if ids == "mixed":  # a fourth part with the only text id: the whole column is text
        pq.write_table(pa.table({"user": ["x7"], "feature": ["5"]}), folder / "part-003.parquet")
    pq.write_table(pq.read_table(folder), tmp_path / "whole.parquet")
    B = read_bipartite(tmp_path / "whole.parquet")
    assert B.user_ids.dtype == (object if ids in ("name", "mixed") else np.int64)
    kw = {"k": 4, "restarts": 2, "shard_size": 60, **settings}
    ref = smooth_k_anonymity(B, rng=np.random.default_rng(3), progress=QUIET, **kw)
    res = smooth_k_distributed(str(folder), str(tmp_path / "out"), rng=np.random.default_rng(3),
                               client=cluster[1], n_partitions=3, chunks_per_task=2,
                               progress=QUIET, **kw)
    got = {(str(u), str(f)) for u, f in _pairs(tmp_path / "out", "user", "feature")}
    assert got == {(str(u), str(f)) for u, f in _ref_pairs(ref)}
    assert (res.n_chunks, res.n_chunks_baseline, res.n_clusters_split) == (
        ref.n_chunks, ref.n_chunks_baseline, ref.n_clusters_split)
    assert res.jaccard == pytest.approx(ref.jaccard, abs=1e-12)
    if settings:
        assert res.n_chunks_baseline > 0  # the fallback path is exercised
    else:
        assert res.n_clusters_split > 0  # the refinement path is exercised


def _random_edges(rng: np.random.Generator, strings: bool):
    s = rng.integers(0, 200, 1500)
    t = rng.integers(0, 200, 1500)
    iso = np.arange(200, 206)
    src = np.concatenate([s, iso, [3, 3]])
    dst = np.concatenate([t, iso, [3, 7]])
    mask = np.concatenate([np.zeros(s.size, bool), np.ones(iso.size, bool), [False, False]])
    if strings:
        src = np.array([f"n{x}" for x in src])
        dst = np.array([f"n{x}" for x in dst])
    return src, dst, mask


@pytest.mark.parametrize("strings", [False, True])
def test_dk_identical_to_in_memory(cluster, tmp_path, strings):
    from graphanon.distributed import dk_distributed

    src, dst, mask = _random_edges(np.random.default_rng(5), strings)
    folder = _write_parts(tmp_path / "in", {"source": src, "target": dst}, 4, mask=mask)
    pq.write_table(pq.read_table(folder), tmp_path / "whole.parquet")
    G = read_graph(tmp_path / "whole.parquet")
    for d in (1, 2):
        ref = dk_distribution(G, d)
        got = dk_distributed(str(folder), d, client=cluster[1])
        assert got.kind == ref.kind
        np.testing.assert_array_equal(got.degrees, ref.degrees)
        np.testing.assert_array_equal(got.counts, ref.counts)
    _assert_same_3k(dk_distributed(str(folder), 3, client=cluster[1]), dk_distribution(G, 3))


def _assert_same_3k(got, ref):
    assert ref.triangles.total > 0 and ref.wedges.total > 0  # the check is not vacuous
    for a, b in ((got.wedges, ref.wedges), (got.triangles, ref.triangles)):
        assert a.kind == b.kind
        np.testing.assert_array_equal(a.degrees, b.degrees)
        np.testing.assert_array_equal(a.counts, b.counts)
        assert a.counts.dtype == b.counts.dtype


@pytest.mark.parametrize("strings", [False, True])
def test_dk3_dense_graph_many_partitions(cluster, tmp_path, strings):
    """A denser graph (many triangles, hubs, degree ties) with duplicates in both
    directions, self-loops and isolated nodes, split into 5 parts and 1 / 3 / 11 buckets."""
    from graphanon.distributed import dk_distributed

    rng = np.random.default_rng(12)
    s = np.concatenate([rng.integers(0, 60, 900), np.zeros(40, np.int64), np.arange(5)])
    t = np.concatenate([rng.integers(0, 60, 900), np.arange(1, 41), np.arange(5)])
    s, t = np.concatenate([s, t[:100]]), np.concatenate([t, s[:100]])  # reversed duplicates
    s, t = np.concatenate([s, [70, 71]]), np.concatenate([t, [70, 71]])
    mask = np.zeros(s.size, bool)
    mask[-2:] = True  # 70 and 71 are isolated nodes
    if strings:
        s = np.array([f"v{x:03d}" for x in s])
        t = np.array([f"v{x:03d}" for x in t])
    folder = _write_parts(tmp_path / "in", {"source": s, "target": t}, 5, mask=mask)
    pq.write_table(pq.read_table(folder), tmp_path / "whole.parquet")
    ref = dk_distribution(read_graph(tmp_path / "whole.parquet"), 3)
    for nb in (1, 3, 11):
        _assert_same_3k(dk_distributed(str(folder), 3, client=cluster[1], n_partitions=nb),
                        ref)


def test_dk3_ca_grqc(cluster, dataset, tmp_path):
    """ca-GrQc (5,242 nodes, 14,484 edges, 48,260 triangles) as 4 Parquet parts."""
    from graphanon.distributed import dk_distributed

    G = read_graph(dataset("ca-GrQc/CA-GrQc.txt"))
    u, v = G.edges()
    folder = _write_parts(tmp_path / "in", {"source": G.node_ids[u], "target": G.node_ids[v]},
                          4)
    _assert_same_3k(dk_distributed(str(folder), 3, client=cluster[1]), dk_distribution(G, 3))


def test_cli_smooth_k_and_dk_on_scheduler(cluster, adult_parts, tmp_path, capsys):
    B, folder = adult_parts
    address = cluster[0].scheduler_address
    single = tmp_path / "single.parquet"
    whole = tmp_path / "adult.parquet"
    write_bipartite(B, whole)
    args = ["smooth-k", "--k", "5", "--shard-size", "400", "--restarts", "2", "--seed", "9"]
    assert main([*args, str(whole), "--out", str(single),
                 "--report", str(tmp_path / "r1.json")]) == 0
    assert main([*args, str(folder), "--out", str(tmp_path / "dist"),
                 "--report", str(tmp_path / "r2.json"), "--scheduler", address]) == 0
    from graphanon.privacy.pseudonyms import pseudonymize

    rep = json.loads((tmp_path / "r2.json").read_text())
    ref = json.loads((tmp_path / "r1.json").read_text())
    A = read_bipartite(single)
    # both runs publish keyed per-release pseudonyms; map each back with its release id
    back1 = dict(zip(pseudonymize(B.user_ids, scope=ref["release"]["release_id"]).tolist(),
                     B.user_ids.tolist(), strict=True))
    back2 = dict(zip(pseudonymize(B.user_ids, scope=rep["release"]["release_id"]).tolist(),
                     B.user_ids.tolist(), strict=True))
    r, c = A.edges()
    assert {(back2[u], f) for u, f in _pairs(tmp_path / "dist", "user", "feature")} == set(
        zip([back1[u] for u in A.user_ids[r].tolist()], A.feature_ids[c].tolist(),
            strict=True))
    assert rep["engine"] == "dask.distributed" and rep["n_workers"] == 2
    assert rep["not_private"]["jaccard"] == pytest.approx(ref["not_private"]["jaccard"])
    assert rep["not_private"]["n_clusters"] == ref["not_private"]["n_clusters"]

    src, dst, mask = _random_edges(np.random.default_rng(2), False)
    edges = _write_parts(tmp_path / "edges", {"source": src, "target": dst}, 3, mask=mask)
    pq.write_table(pq.read_table(edges), tmp_path / "edges.parquet")
    assert main(["dk", str(tmp_path / "edges.parquet"), "--d", "2",
                 "--out", str(tmp_path / "a.tsv")]) == 0
    assert main(["dk", str(edges), "--d", "2", "--out", str(tmp_path / "b.tsv"),
                 "--scheduler", address]) == 0
    assert (tmp_path / "a.tsv").read_text() == (tmp_path / "b.tsv").read_text()
    assert read_dk_table(tmp_path / "b.tsv").kind == "joint_degree"
    assert main(["dk", str(tmp_path / "edges.parquet"), "--d", "3",
                 "--out", str(tmp_path / "c.tsv")]) == 0
    assert main(["dk", str(edges), "--d", "3", "--out", str(tmp_path / "d.tsv"),
                 "--scheduler", address]) == 0
    assert (tmp_path / "c.tsv").read_text() == (tmp_path / "d.tsv").read_text()
    assert "triangle\t" in (tmp_path / "d.tsv").read_text()


def test_unreachable_scheduler_is_a_clean_error(adult_parts, tmp_path, capsys, monkeypatch):
    import dask

    _, folder = adult_parts
    out = tmp_path / "out"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code = main(["smooth-k", str(folder), "--k", "5", "--shard-size", "100",
                     "--out", str(out), "--report", str(tmp_path / "r.json"),
                     "--scheduler", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 4
    assert "cannot reach the Dask scheduler" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "r.json").exists()
    assert os.listdir(tmp_path) == []
    assert main(["dk", str(folder), "--d", "1", "--out", str(tmp_path / "x.tsv"),
                 "--scheduler", "not-an-address"]) == 2
    assert main(["dk", str(folder), "--d", "1", "--out", str(tmp_path / "x.tsv"),
                 "--cluster", "remote:2"]) == 2
    assert os.listdir(tmp_path) == []


def test_bad_input_leaves_nothing(cluster, tmp_path, capsys):
    address = cluster[0].scheduler_address
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = _write_parts(tmp_path / "bad", {"user": np.arange(10), "item": np.arange(10)}, 2)
    out = tmp_path / "out"
    base = ["--k", "2", "--out", str(out), "--report", str(tmp_path / "r.json"),
            "--scheduler", address]
    assert main(["smooth-k", str(empty), *base]) == 2
    assert main(["smooth-k", str(bad), *base]) == 2
    err = capsys.readouterr().err
    assert "no Parquet part files" in err and "no column 'feature'" in err
    assert "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["bad", "empty"]
    # an existing output is kept when a run fails
    out.mkdir()
    (out / "part-00000.parquet").write_bytes(b"old")
    assert main(["smooth-k", str(bad), *base]) == 2
    assert (out / "part-00000.parquet").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["bad", "empty", "out"]


def test_run_distributed_step(cluster, adult_parts, tmp_path):
    from graphanon.distributed import run_distributed_step

    B, folder = adult_parts
    address = cluster[0].scheduler_address
    rep = run_distributed_step("smooth-k", {"input": str(folder), "out": str(tmp_path / "o"),
                                            "k": 5, "shard_size": 500, "restarts": 1,
                                            "scheduler": address}, seed=4)
    ref = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(4), restarts=1, shard_size=500,
                             progress=QUIET)
    assert rep["n_clusters"] == ref.n_clusters and rep["seed"] == 4
    assert _pairs(tmp_path / "o", "user", "feature") == _ref_pairs(ref)
    with pytest.raises(InvalidParameterError, match="Unknown key"):
        run_distributed_step("smooth-k", {"input": "x", "out": "y", "k": 2, "colour": 1},
                             scheduler=address)
    with pytest.raises(InvalidParameterError, match="must be one of"):
        run_distributed_step("mondrian", {"input": "x", "out": "y"}, scheduler=address)


def test_single_machine_path_does_not_import_dask(tmp_path):
    B = load_adult_sample()
    write_bipartite(B, tmp_path / "a.tsv")
    code = (
        "import sys\n"
        "from graphanon.cli import main\n"
        f"rc = main(['smooth-k', {str(tmp_path / 'a.tsv')!r}, '--k', '5', '--restarts', '1',"
        f" '--shard-size', '500', '--out', {str(tmp_path / 'o.tsv')!r},"
        f" '--report', {str(tmp_path / 'r.json')!r}])\n"
        "assert rc == 0, rc\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "assert not bad, bad\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_cli_local_cluster_processes(tmp_path):
    """``--cluster local:2`` starts (and stops) two worker processes."""
    src, dst, mask = _random_edges(np.random.default_rng(8), False)
    edges = _write_parts(tmp_path / "edges", {"source": src, "target": dst}, 2, mask=mask)
    pq.write_table(pq.read_table(edges), tmp_path / "edges.parquet")
    assert main(["dk", str(tmp_path / "edges.parquet"), "--d", "1",
                 "--out", str(tmp_path / "a.tsv")]) == 0
    assert main(["dk", str(edges), "--d", "1", "--out", str(tmp_path / "b.tsv"),
                 "--cluster", "local:2"]) == 0
    assert (tmp_path / "a.tsv").read_text() == (tmp_path / "b.tsv").read_text()


def test_job_file_with_distributed_steps(cluster, adult_parts, tmp_path):
    """A job whose steps name a scheduler needs no [source] or sinks: each step reads and
    writes its own Parquet folders (relative to the job file)."""
    import shutil
    import textwrap

    B, folder = adult_parts
    shutil.copytree(folder, tmp_path / "users")
    address = cluster[0].scheduler_address
    job = tmp_path / "job.toml"
    job.write_text(textwrap.dedent(f"""
        [job]
        name = "scale"
        seed = 4

        [[steps]]
        name = "smooth-k"
        input = "users"
        out = "release"
        k = 5
        shard_size = 500
        restarts = 1
        scheduler = "{address}"
    """))
    assert main(["-q", "run", str(job)]) == 0
    ref = smooth_k_anonymity(B, k=5, rng=np.random.default_rng(4), restarts=1, shard_size=500,
                             progress=QUIET)
    assert _pairs(tmp_path / "release", "user", "feature") == _ref_pairs(ref)
    job.write_text(job.read_text().replace('name = "smooth-k"', 'name = "mondrian"'))
    assert main(["-q", "run", str(job)]) == 2


def test_run_distributed_step_dk3(cluster, tmp_path):
    from graphanon.distributed import run_distributed_step

    src, dst, mask = _random_edges(np.random.default_rng(4), False)
    edges = _write_parts(tmp_path / "edges", {"source": src, "target": dst}, 2, mask=mask)
    rep = run_distributed_step("dk", {"input": str(edges), "out": str(tmp_path / "3k.tsv"),
                                      "d": 3, "scheduler": cluster[0].scheduler_address})
    assert rep["kind"] == "3k"
    got = read_dk_table(tmp_path / "3k.tsv")
    pq.write_table(pq.read_table(edges), tmp_path / "whole.parquet")
    _assert_same_3k(got, dk_distribution(read_graph(tmp_path / "whole.parquet"), 3))


def test_cli_refuses_bad_arguments_before_connecting(adult_parts, tmp_path, capsys,
                                                     monkeypatch):
    """Every refusal happens before a cluster is started or a scheduler contacted."""
    import graphanon.distributed as gd

    def no_connect(**kwargs):
        raise AssertionError(f"connect() was called with {kwargs}")

    monkeypatch.setattr(gd, "connect", no_connect)
    _, folder = adult_parts
    edges = _write_parts(tmp_path / "edges", {"source": np.arange(6), "target": np.arange(6)},
                         2)
    mixed = _write_parts(tmp_path / "mixed", {"source": np.arange(4), "target": np.arange(4)},
                         1)
    pq.write_table(pa.table({"source": ["a"], "target": ["b"]}), mixed / "part-001.parquet")
    (tmp_path / "file").write_text("x")
    sk = ["smooth-k", str(folder), "--k", "5", "--report", str(tmp_path / "r.json"),
          "--cluster", "local:2"]
    cases = [
        ([*sk, "--shard-size", "3", "--out", str(tmp_path / "o")], "'--shard-size' option"),
        ([*sk, "--alpha", "2", "--out", str(tmp_path / "o")], "'--alpha' option"),
        ([*sk, "--restarts", "0", "--out", str(tmp_path / "o")], "'--restarts' option"),
        ([*sk, "--jobs", "2", "--out", str(tmp_path / "o")], "'--jobs'"),
        ([*sk, "--out", str(tmp_path / "file")], "is not a folder"),
        ([*sk, "--out", str(tmp_path / "no" / "o")], "does not exist"),
        ([*sk, "--out", str(tmp_path / "o"), "--clusters", str(tmp_path / "file")],
         "is not a folder"),
        (["smooth-k", str(edges), "--k", "2", "--out", str(tmp_path / "o"), "--report",
          str(tmp_path / "r.json"), "--scheduler", "tcp://127.0.0.1:1"], "no column 'user'"),
        (["dk", str(folder), "--d", "3", "--out", str(tmp_path / "x.tsv"),
          "--scheduler", "tcp://127.0.0.1:1"], "no column 'source'"),
        (["dk", str(mixed), "--d", "1", "--out", str(tmp_path / "x.tsv"),
          "--cluster", "local:2"], "integers in"),
        (["dk", str(edges), "--d", "1", "--out", str(tmp_path / "x.tsv"),
          "--cluster", "local:0"], "local:N"),
        (["dk", str(edges), "--d", "1", "--out", str(tmp_path / "x.tsv"),
          "--cluster", "local:2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and "AssertionError" not in err, err
    assert sorted(os.listdir(tmp_path)) == ["edges", "file", "mixed"]


def test_cli_dask_logs_quiet_unless_asked(tmp_path):
    """No Dask INFO lines at the default --log-level warning; they appear with info."""
    src, dst, mask = _random_edges(np.random.default_rng(1), False)
    edges = _write_parts(tmp_path / "edges", {"source": src, "target": dst}, 2, mask=mask)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    errs = {}
    for level in ("warning", "info"):
        code = ("from graphanon.cli import main\n"
                f"raise SystemExit(main(['--log-level', {level!r}, 'dk', {str(edges)!r}, "
                f"'--d', '2', '--out', {str(tmp_path / (level + '.tsv'))!r}, "
                "'--cluster', 'local:1']))\n")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        errs[level] = proc.stderr
    assert "INFO" not in errs["warning"] and "distributed" not in errs["warning"], errs
    assert "INFO distributed.scheduler" in errs["info"]


def test_run_distributed_step_checks_before_connecting(adult_parts, tmp_path, monkeypatch):
    import graphanon.distributed.steps as steps

    def no_connect(**kwargs):
        raise AssertionError("connect() was called")

    monkeypatch.setattr(steps, "connect", no_connect)
    _, folder = adult_parts
    sk = {"input": str(folder), "out": str(tmp_path / "o"), "cluster": "local:2"}
    for params, message in [({**sk, "k": 5, "shard_size": 2}, "'shard_size'"),
                            ({**sk, "k": 5, "alpha": 1.5}, "'alpha'"),
                            ({**sk, "k": 5, "variant": "blur"}, "'variant'"),
                            ({**sk, "k": 5, "out": str(tmp_path / "no" / "o")},
                             "does not exist")]:
        with pytest.raises(InvalidParameterError, match=message):
            steps.run_distributed_step("smooth-k", params)
    dk = {"input": str(folder), "out": str(tmp_path / "t.tsv"), "cluster": "local:2"}
    with pytest.raises(InvalidParameterError, match="'d'"):
        steps.run_distributed_step("dk", {**dk, "d": 4})
    from graphanon.errors import InputFormatError

    with pytest.raises(InputFormatError, match="no column 'source'"):
        steps.run_distributed_step("dk", {**dk, "d": 3})
    assert os.listdir(tmp_path) == []
