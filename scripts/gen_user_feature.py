"""Synthetic user × feature graphs for the smooth-k benchmarks (issue 16).

Two generators, both seeded and vectorized (10 M edges in a few seconds):

* :func:`clustered_graph` — users drawn from a few hundred groups; each group has a pool of a
  few dozen "interest" features and a member holds each pool feature independently with a
  small probability (feature ids are shuffled, so no id range marks a group); on top, every
  user gets a Poisson number of noise features drawn from a Zipf law over a large noise
  vocabulary. Members of a group share only a few features
  with each other, and the noise is shared across groups: the hard, sparse regime of issue
  16 part 4.
* :func:`movielens_like` — a MovieLens-like rating graph (who rated what): item popularity
  Zipf within 18 genres, user activity heavy-tailed (log-normal, at least ``min_activity``
  ratings), each user with a Dirichlet taste over the genres. MovieLens itself is not
  available offline.

Both return a :class:`graphanon.graph.BipartiteGraph` with integer ids; :func:`with_string_ids`
relabels it with ids such as ``u123`` / ``f45`` (the same graph, string-keyed), and the
command line writes ``user<TAB>feature`` lines:

    python scripts/gen_user_feature.py clustered --edges 1000000 --out clustered.tsv
    python scripts/gen_user_feature.py movielens --edges 1000000 --string-ids --out ml.tsv
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from graphanon.graph import BipartiteGraph

__all__ = ["clustered_graph", "movielens_like", "with_string_ids", "write_tsv"]


def _zipf_weights(n: int, exponent: float) -> np.ndarray[Any, Any]:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    return w / w.sum()


def clustered_graph(n_edges: int, *, n_groups: int = 300, pool: int = 30,
                    pool_share: float = 0.2, n_noise: int = 50_000, noise_mean: float = 4.0,
                    zipf: float = 1.1, seed: int = 0) -> BipartiteGraph:
    """Users in ``n_groups`` groups, each group with ``pool`` private interest features of
    which a member holds each with probability ``pool_share``, plus ``Poisson(noise_mean)``
    noise features from a Zipf(``zipf``) law over ``n_noise`` shared features. The number
    of users is chosen so that the graph has about ``n_edges`` edges. The group of every
    user is not returned: the anonymizers must find the structure themselves."""
    rng = np.random.default_rng(seed)
    n_topic = n_groups * pool
    per_user = pool * pool_share + noise_mean
    n = max(int(n_edges / per_user), 1)
    group = rng.integers(0, n_groups, n)
    rows, cols = [], []
    block = 200_000  # users per block: bounded memory at 10 M edges
    w = _zipf_weights(n_noise, zipf)
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        g = group[lo:hi]
        hit = rng.random((hi - lo, pool)) < pool_share
        r, j = np.nonzero(hit)
        rows.append(lo + r)
        cols.append(g[r] * pool + j)
        nn = rng.poisson(noise_mean, hi - lo)
        rows.append(lo + np.repeat(np.arange(hi - lo), nn))
        cols.append(n_topic + rng.choice(n_noise, int(nn.sum()), p=w))
    # feature ids carry no structure (no group in a contiguous, low id range)
    perm = rng.permutation(n_topic + n_noise)
    return BipartiteGraph.from_indices(np.concatenate(rows), perm[np.concatenate(cols)],
                                       n_users=n, n_features=n_topic + n_noise)


def movielens_like(n_edges: int, *, n_items: int = 10_000, n_genres: int = 18,
                   mean_activity: float = 50.0, sigma: float = 1.0, min_activity: int = 10,
                   item_zipf: float = 1.0, taste: float = 0.3, seed: int = 0
                   ) -> BipartiteGraph:
    """A MovieLens-like user × item graph of about ``n_edges`` edges: activity log-normal
    (``sigma``) with mean about ``mean_activity`` and at least ``min_activity`` ratings;
    items split into ``n_genres`` genres with Zipf(``item_zipf``) popularity inside each
    genre (popular genres hold more items); each user's genre mix is Dirichlet(``taste``).
    Repeated draws of an item are merged, so degrees are slightly below the drawn activity."""
    rng = np.random.default_rng(seed)
    n = max(int(n_edges / mean_activity), 1)
    mu = np.log(mean_activity) - sigma**2 / 2
    act = np.maximum(min_activity, np.round(rng.lognormal(mu, sigma, n))).astype(np.int64)
    act = np.minimum(act, n_items // 2)
    gsize = np.maximum(1, np.round(_zipf_weights(n_genres, 0.7) * n_items)).astype(np.int64)
    gstart = np.concatenate([[0], np.cumsum(gsize)[:-1]])
    n_items = int(gsize.sum())
    mix = rng.dirichlet(np.full(n_genres, taste), size=n)
    rows, cols = [], []
    block = 100_000
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        r = np.repeat(np.arange(lo, hi), act[lo:hi])
        # genre of every draw from the user's mix (inverse CDF), then an item of that genre
        cdf = np.cumsum(mix[lo:hi], axis=1)
        u = rng.random(r.size)
        genre = (u[:, None] > cdf[r - lo]).sum(axis=1)
        genre = np.minimum(genre, n_genres - 1)
        item = np.empty(r.size, dtype=np.int64)
        for g in range(n_genres):
            sel = np.flatnonzero(genre == g)
            item[sel] = gstart[g] + rng.choice(gsize[g], sel.size,
                                               p=_zipf_weights(int(gsize[g]), item_zipf))
        rows.append(r)
        cols.append(item)
    perm = rng.permutation(n_items)  # item ids carry neither genre nor popularity
    return BipartiteGraph.from_indices(np.concatenate(rows), perm[np.concatenate(cols)],
                                       n_users=n, n_features=n_items)


def with_string_ids(B: BipartiteGraph) -> BipartiteGraph:
    """The same graph with user ids ``u<i>`` and feature ids ``f<j>`` (string-keyed)."""
    r, c = B.edges()
    users = np.char.add("u", np.arange(B.n_users).astype(str)).astype(object)
    feats = np.char.add("f", np.arange(B.n_features).astype(str)).astype(object)
    return BipartiteGraph.from_pairs(users[r], feats[c])


def write_tsv(B: BipartiteGraph, path: str | Path, *, string_ids: bool = False) -> None:
    """Write ``user<TAB>feature`` lines (ids ``u<i>`` / ``f<j>`` with ``string_ids``)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    r, c = B.edges()
    if string_ids:
        u: Any = pa.compute.binary_join_element_wise("u", pa.array(r).cast(pa.string()), "")
        f: Any = pa.compute.binary_join_element_wise("f", pa.array(c).cast(pa.string()), "")
    else:
        u, f = pa.array(r), pa.array(c)
    pacsv.write_csv(pa.table({"user": u, "feature": f}), str(path),
                    pacsv.WriteOptions(include_header=False, delimiter="\t",
                                       quoting_style="none"))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["clustered", "movielens"])
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--string-ids", action="store_true", help="ids u<i> / f<j>")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    t = time.perf_counter()
    gen = clustered_graph if a.kind == "clustered" else movielens_like
    B = gen(a.edges, seed=a.seed)
    write_tsv(B, a.out, string_ids=a.string_ids)
    print(f"{a.kind}: {B.n_users} users, {B.n_features} features, {B.n_edges} edges "
          f"({time.perf_counter() - t:.1f} s) -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
