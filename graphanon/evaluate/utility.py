"""Downstream utility of anonymized releases (part 3 of ``graphanon evaluate``).

Adult (the smooth-k paper's downstream comparison, ``000_*.txt`` section 6 and Appendix D):
the users are split into a training and a test part; only the training part is anonymized —
its features, never its labels — a classifier is trained on the anonymized features and
evaluated on the *original* test features (accuracy and ROC AUC), next to the same classifier
trained on the original training features. The classifiers come from scikit-learn, an
optional dependency (``pip install graphanon[eval]``), imported only here and only when used.

Social graphs: a synthetic graph is generated from each released 1K / 2K table
(:func:`graphanon.dk.dk_graph`) and compared with the original on the degree distribution
(KS distance of the degree histograms), average local clustering, degree assortativity, the
average shortest path length (BFS from sampled sources) and the share of nodes in the largest
connected component.

Synthetic graphs against the original on the metrics of the DP graph-generation literature
(:func:`structure_statistics`, :func:`compare_structure`; ``scripts/bench_synthetic.py``):
edge count, degree KS and KL, global and average local clustering, modularity of Louvain
communities and their node-aligned NMI, assortativity, sampled average shortest path, a
double-sweep diameter, and the top-1 % eigenvector-centrality nodes.

Every number here is computed against the private input: it is for the operator, not for
publication (the ``not_private`` rule of ``docs/privacy.md``).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._progress import ProgressFn, log_progress
from .._validation import check_choice, check_float, check_int
from ..errors import InvalidParameterError
from ..graph import BipartiteGraph, Graph
from ..metrics import kl_divergence, ks_distance, relative_error
from ..privacy.noise import NoiseBackend

__all__ = [
    "CLASSIFIERS",
    "SOCIAL_MECHANISMS",
    "ClassifierScore",
    "GraphUtility",
    "StructureStatistics",
    "adult_utility",
    "classifier_scores",
    "compare_structure",
    "double_sweep_diameter",
    "eigenvector_centrality",
    "graph_statistics",
    "load_adult_labeled",
    "louvain_communities",
    "require_sklearn",
    "social_utility",
    "split_users",
    "structure_statistics",
]

CLASSIFIERS = ("logistic", "gradient-boosting")
SOCIAL_MECHANISMS = ("dk1-edge", "dk2-edge", "dk2-edge-thresholded", "dk2-mpdc-edge",
                     "theta-dk1-node", "theta-dk2-node", "pdp-st-dk2")
EVAL_EXTRA = "scikit-learn is needed for the utility evaluation: pip install 'graphanon[eval]'"


def require_sklearn() -> Any:
    """Import scikit-learn or raise a one-line :class:`InvalidParameterError` saying how to
    install the ``eval`` extra."""
    try:
        import sklearn
    except ImportError:  # pragma: no cover - depends on the environment
        raise InvalidParameterError(EVAL_EXTRA) from None
    return sklearn


# ---------------------------------------------------------------------- Adult
def load_adult_labeled(
    path: str | Path | None = None,
) -> tuple[BipartiteGraph, npt.NDArray[np.int64]]:
    """The Adult table as its user × feature graph and the income label (1 = ``>50K``).

    Parameters
    ----------
    path : str or Path, optional
        UCI ``adult.data`` (headerless) or a CSV with Adult's header line; default the shipped
        2,000-record sample.

    Returns
    -------
    (BipartiteGraph, ndarray)
        The graph of the ``adult`` preset (8 categorical attributes one-hot; ``income`` is not
        a feature; incomplete records dropped) and one label per user, aligned by row.
    """
    from ..datasets import data_path
    from ..io.tables import PRESETS, preset_column_names, read_table, table_to_bipartite

    spec = PRESETS["adult"]
    p = Path(path) if path is not None else data_path("adult_sample.csv")
    if not p.exists():
        raise InvalidParameterError(f"input file {str(p)!r} does not exist.")
    table = read_table(p, column_names=preset_column_names(p, spec),
                       delimiter=spec.delimiter, na_values=spec.na_values)
    if "income" not in table.column_names:
        raise InvalidParameterError(f"{str(p)!r} has no 'income' column: not an Adult table.")
    import pyarrow.compute as pc

    mask = None
    for c in (*spec.columns, "income"):
        valid = pc.is_valid(table.column(c))
        mask = valid if mask is None else pc.and_(mask, valid)
    table = table.filter(mask)
    B = table_to_bipartite(table, columns=spec.columns, binarize=None, dropna=False)
    income = [str(v).strip().rstrip(".") for v in table.column("income").to_pylist()]
    y = np.array([1 if v == ">50K" else 0 for v in income], dtype=np.int64)
    return B, y


def split_users(y: Any, *, test_fraction: float, rng: np.random.Generator
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Stratified random split of the users into (train, test) index arrays."""
    tf = check_float(test_fraction, "test_fraction", "split_users", low=0.0, high=1.0,
                     closed="neither")
    y = np.asarray(y)
    test = []
    for label in np.unique(y):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        test.append(idx[: max(1, round(tf * idx.size))])
    te = np.sort(np.concatenate(test))
    tr = np.setdiff1d(np.arange(y.size), te)
    return tr.astype(np.int64), te.astype(np.int64)


def _subset(B: BipartiteGraph, rows: npt.NDArray[np.int64]) -> BipartiteGraph:
    m = B.to_scipy().tocsr()[rows]
    return BipartiteGraph.from_scipy(m, user_ids=B.user_ids[rows], feature_ids=B.feature_ids)


@dataclass(frozen=True)
class ClassifierScore:
    """Test accuracy and ROC AUC of one classifier trained on one release."""

    mechanism: str
    parameter: str
    classifier: str
    accuracy: float
    auc: float
    n_train: int
    seconds: float
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def classifier_scores(X_train: Any, y_train: Any, X_test: Any, y_test: Any, *,
                      classifier: str, seed: int = 0) -> tuple[float, float]:
    """Fit ``classifier`` on the training data; ``(accuracy, ROC AUC)`` on the test data.

    ``"logistic"``: :class:`sklearn.linear_model.LogisticRegression` (lbfgs, up to 2,000
    iterations); ``"gradient-boosting"``:
    :class:`sklearn.ensemble.HistGradientBoostingClassifier` (defaults, seeded, fitted with
    one OpenMP thread).
    """
    check_choice(classifier, "classifier", "classifier_scores", CLASSIFIERS)
    require_sklearn()
    from sklearn.metrics import accuracy_score, roc_auc_score

    Xtr = np.asarray(X_train, dtype=np.float64)
    Xte = np.asarray(X_test, dtype=np.float64)
    ytr, yte = np.asarray(y_train), np.asarray(y_test)
    if np.unique(ytr).size < 2:
        raise InvalidParameterError("classifier_scores: the training labels have one class.")
    if classifier == "logistic":
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression

        model: Any = LogisticRegression(max_iter=2000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(Xtr, ytr)
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

        model = HistGradientBoostingClassifier(random_state=seed)
        # one OpenMP thread: on these small tables the threads mostly wait for each other
        # (3-6 s instead of 0.4 s per fit on a busy 2-core machine)
        with threadpool_limits(limits=1, user_api="openmp"):
            model.fit(Xtr, ytr)
    prob = model.predict_proba(Xte)[:, 1]
    return (float(accuracy_score(yte, (prob >= 0.5).astype(int))),
            float(roc_auc_score(yte, prob)))


Anonymizer = Callable[[BipartiteGraph, np.random.Generator], npt.NDArray[np.float64]]


def _adult_mechanisms(ks: Sequence[int], epsilons: Sequence[float], *, b_max_users: int,
                      b_ks: Sequence[int] | None, rr_rng: np.random.Generator | None
                      ) -> list[tuple[str, str, Anonymizer]]:
    from ..anonymity import adaptive_anonymize, mondrian, smooth_k_anonymity
    from ..anonymity.randomized_response import randomized_response

    out: list[tuple[str, str, Anonymizer]] = [
        ("original", "-", lambda B, rng: B.to_dense().astype(np.float64))]

    def smooth(k: int, variant: str) -> Anonymizer:
        return lambda B, rng: smooth_k_anonymity(B, k=k, rng=rng, variant=variant
                                                 ).anonymized.to_dense().astype(np.float64)

    def mond(k: int) -> Anonymizer:
        return lambda B, rng: mondrian(B, k=k).anonymized.to_dense().astype(np.float64)

    def bmatch(k: int) -> Anonymizer:
        def run(B: BipartiteGraph, rng: np.random.Generator) -> npt.NDArray[np.float64]:
            X = B.to_dense().astype(np.int32)
            if X.shape[0] > b_max_users:
                raise _Skip(f"b-anonymize skipped: {X.shape[0]} training users > "
                            f"b_anonymize_max_users={b_max_users}")
            Y = adaptive_anonymize(X, delta=k, rng=rng).in_original_order()
            return np.asarray(Y == 1, dtype=np.float64)  # masked cells (*) read as absent
        return run

    def rr(eps: float) -> Anonymizer:
        return lambda B, rng: randomized_response(
            B, epsilon=eps, neighbourhood="edge", users=B.user_ids, features=B.feature_ids,
            rng=rr_rng).graph.to_dense().astype(np.float64)

    for k in ks:
        out += [("smooth-k", f"k={k}", smooth(k, "smooth")),
                ("suppress", f"k={k}", smooth(k, "suppress")),
                ("mondrian", f"k={k}", mond(k))]
        if b_ks is None or k in b_ks:
            out.append(("b-anonymize", f"δ={k}", bmatch(k)))
    out += [("randomized-response", f"ε={e:g}", rr(e)) for e in epsilons]
    return out


class _Skip(Exception):
    pass


def adult_utility(
    B: BipartiteGraph,
    y: Any,
    *,
    ks: Sequence[int] = (2, 5, 10, 20),
    epsilons: Sequence[float] = (1.0, 2.0, 5.0, 10.0),
    classifiers: Sequence[str] = ("logistic",),
    test_fraction: float = 0.3,
    b_anonymize_max_users: int = 5_000,
    b_anonymize_ks: Sequence[int] | None = None,
    rng: np.random.Generator,
    backend: NoiseBackend | None = None,
    progress: ProgressFn = log_progress,
) -> list[ClassifierScore]:
    """Train on each anonymized training set, test on the original test set.

    Parameters
    ----------
    B : BipartiteGraph
        Users × features (e.g. from :func:`load_adult_labeled`).
    y : array of int
        One binary label per user.
    ks : sequence of int
        k of smooth-k, suppression and Mondrian, δ of b-anonymize.
    epsilons : sequence of float
        ε (edge level, per cell) of randomized response.
    classifiers : sequence of {"logistic", "gradient-boosting"}
    test_fraction : float
        Share of users held out (stratified by label).
    b_anonymize_max_users : int
        b-anonymize is skipped (and says so) above this many training users.
    b_anonymize_ks : sequence of int, optional
        The δ values of b-anonymize (default: every k of ``ks``; it is the slow one).
    rng : numpy.random.Generator
        Split and anonymizer randomness.
    backend : NoiseBackend, optional
        The seeded ``numpy-insecure`` backend makes randomized response reproducible (its
        generator draws the coins); otherwise they come from ``os.urandom``.
    progress : ProgressFn

    Returns
    -------
    list of ClassifierScore
    """
    owner = "adult_utility"
    y = np.asarray(y)
    if y.shape != (B.n_users,):
        raise InvalidParameterError(f"{owner}: one label per user is needed ({B.n_users}).")
    for c in classifiers:
        check_choice(c, "classifiers", owner, CLASSIFIERS)
    ks = [check_int(k, "ks", owner, low=2) for k in ks]
    require_sklearn()
    tr, te = split_users(y, test_fraction=test_fraction, rng=rng)
    B_train = _subset(B, tr)
    X_test = B.to_dense()[te].astype(np.float64)
    from ..privacy.noise import NumpyInsecureBackend

    rr_rng = backend.rng if isinstance(backend, NumpyInsecureBackend) else None
    mechs = _adult_mechanisms(ks, epsilons, b_max_users=b_anonymize_max_users,
                              b_ks=None if b_anonymize_ks is None else list(b_anonymize_ks),
                              rr_rng=rr_rng)
    out: list[ClassifierScore] = []
    for i, (name, param, fn) in enumerate(mechs):
        progress("utility: adult classifiers", i, len(mechs))
        t0 = time.perf_counter()
        try:
            X_train = fn(B_train, rng)
        except _Skip as exc:
            out += [ClassifierScore(name, param, c, math.nan, math.nan, tr.size, 0.0, str(exc))
                    for c in classifiers]
            continue
        t_anon = time.perf_counter() - t0
        for c in classifiers:
            t1 = time.perf_counter()
            acc, auc = classifier_scores(X_train, y[tr], X_test, y[te], classifier=c,
                                         seed=int(rng.integers(2**31)))
            out.append(ClassifierScore(name, param, c, acc, auc, int(tr.size),
                                       t_anon + time.perf_counter() - t1))
    progress("utility: adult classifiers", len(mechs), len(mechs))
    return out


# ---------------------------------------------------------------------- social graphs
def graph_statistics(G: Graph, *, rng: np.random.Generator, n_sources: int = 200
                     ) -> dict[str, Any]:
    """Degree histogram, average local clustering, assortativity, sampled average shortest
    path length and largest-component share of ``G``.

    The path length is the mean over the finite distances ``> 0`` from ``n_sources`` sources
    drawn uniformly (all nodes when fewer); ``nan`` for an empty graph.
    """
    return _graph_statistics(G, G.to_igraph(), rng=rng, n_sources=n_sources)


def _graph_statistics(G: Graph, g: Any, *, rng: np.random.Generator, n_sources: int
                      ) -> dict[str, Any]:
    n_sources = check_int(n_sources, "n_sources", "graph_statistics", low=1)
    n = g.vcount()
    out: dict[str, Any] = {"n_nodes": n, "n_edges": g.ecount(),
                           "degree_histogram": np.bincount(G.degrees).tolist() if n else []}
    if n == 0 or g.ecount() == 0:
        out.update(avg_clustering=math.nan, assortativity=math.nan, avg_path_length=math.nan,
                   lcc_fraction=0.0 if n == 0 else 1.0 / n)
        return out
    out["avg_clustering"] = float(g.transitivity_avglocal_undirected(mode="zero"))
    out["assortativity"] = float(g.assortativity_degree(directed=False))
    src = rng.choice(n, size=min(n, n_sources), replace=False)
    dist = np.asarray(g.distances(source=src.tolist()), dtype=np.float64)
    finite = dist[np.isfinite(dist) & (dist > 0)]
    out["avg_path_length"] = float(finite.mean()) if finite.size else math.nan
    out["lcc_fraction"] = float(max(g.connected_components().sizes()) / n)
    return out


def double_sweep_diameter(g: Any, *, rng: np.random.Generator, sweeps: int = 4) -> int:
    """A lower bound of the diameter of the largest connected component of igraph ``g``.

    Each double sweep starts at a random node ``r`` of the largest component, finds a node
    ``a`` farthest from ``r`` (one BFS) and takes the eccentricity of ``a`` (a second BFS);
    the result is the largest over ``sweeps`` double sweeps. Exact on trees, and in practice
    on most sparse real graphs (Magnien, Latapy, Habib, "Fast computation of empirically
    tight bounds for the diameter of massive graphs", JEA 2009). 0 for a graph without edges.
    """
    sweeps = check_int(sweeps, "sweeps", "double_sweep_diameter", low=1)
    if g.ecount() == 0:
        return 0
    comps = g.connected_components()
    lcc = np.asarray(comps[int(np.argmax(comps.sizes()))], dtype=np.int64)
    best = 0
    for r in rng.choice(lcc, size=sweeps, replace=True):
        d = np.asarray(g.distances(source=[int(r)])[0], dtype=np.float64)
        a = int(np.argmax(np.where(np.isfinite(d), d, -1.0)))
        d = np.asarray(g.distances(source=[a])[0], dtype=np.float64)
        best = max(best, int(d[np.isfinite(d)].max()))
    return best


def louvain_communities(g: Any, *, seed: int = 0) -> tuple[npt.NDArray[np.int64], float]:
    """Louvain (igraph ``community_multilevel``) membership and modularity of igraph ``g``.

    igraph draws its node order from Python's ``random``; a ``random.Random(seed)`` is
    installed for the call and the default generator restored after it, so the partition is
    a function of ``(g, seed)``. ``nan`` modularity for a graph without edges.
    """
    import random

    import igraph

    if g.ecount() == 0:
        return np.arange(g.vcount(), dtype=np.int64), math.nan
    igraph.set_random_number_generator(random.Random(seed))
    try:
        part = g.community_multilevel()
    finally:
        igraph.set_random_number_generator(random)
    return np.asarray(part.membership, dtype=np.int64), float(part.modularity)


def eigenvector_centrality(g: Any) -> npt.NDArray[np.float64]:
    """Eigenvector centrality of igraph ``g`` scaled to unit L2 norm (networkx's convention,
    the one PrivGraph's evaluation uses); zeros for a graph without edges."""
    if g.ecount() == 0:
        return np.zeros(g.vcount())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # igraph warns on disconnected / regular graphs
        c = np.asarray(g.eigenvector_centrality(), dtype=np.float64)
    norm = float(np.linalg.norm(c))
    return c / norm if norm > 0 else c


@dataclass(frozen=True)
class StructureStatistics:
    """The statistics of one graph that :func:`compare_structure` compares.

    ``membership`` (Louvain communities) and ``centrality`` (unit-L2 eigenvector centrality)
    are indexed by node: they are compared node by node only for releases that keep the
    node ids.
    """

    n_nodes: int
    n_edges: int
    degree_histogram: list[int]
    transitivity: float
    avg_clustering: float
    modularity: float
    assortativity: float
    avg_path_length: float
    diameter: int
    membership: npt.NDArray[np.int64]
    centrality: npt.NDArray[np.float64]


def structure_statistics(G: Graph, *, rng: np.random.Generator, n_sources: int = 200,
                         louvain_seed: int = 0, sweeps: int = 4) -> StructureStatistics:
    """:func:`graph_statistics` (``n_sources`` sampled BFS sources) plus the global
    clustering coefficient (transitivity), Louvain communities and their modularity
    (:func:`louvain_communities`), a double-sweep diameter (:func:`double_sweep_diameter`)
    and eigenvector centrality (:func:`eigenvector_centrality`)."""
    g = G.to_igraph()
    base = _graph_statistics(G, g, rng=rng, n_sources=n_sources)
    membership, modularity = louvain_communities(g, seed=louvain_seed)
    return StructureStatistics(
        n_nodes=base["n_nodes"], n_edges=base["n_edges"],
        degree_histogram=base["degree_histogram"],
        transitivity=float(g.transitivity_undirected()) if g.ecount() else math.nan,
        avg_clustering=base["avg_clustering"], modularity=modularity,
        assortativity=base["assortativity"], avg_path_length=base["avg_path_length"],
        diameter=double_sweep_diameter(g, rng=rng, sweeps=sweeps), membership=membership,
        centrality=eigenvector_centrality(g))


def compare_structure(orig: StructureStatistics, syn: StructureStatistics, *,
                      aligned: bool, top: float = 0.01) -> dict[str, float]:
    """Errors of a synthetic graph's statistics against the original's.

    ``edges_rel``, ``transitivity_rel``, ``avg_clustering_rel``, ``modularity_rel``,
    ``path_length_rel``, ``diameter_rel``: relative errors ``|syn − orig| / |orig|``;
    ``degree_ks`` and ``degree_kl`` (:func:`~graphanon.metrics.kl_divergence`, original ‖
    synthetic) of the degree histograms; ``assortativity_abs``: ``|Δ assortativity|``;
    ``evc_mae``: mean absolute difference of the ``k`` largest eigenvector centralities, each
    sorted descending (``k = max(1, ⌊top · n⌋)`` of the original's ``n`` nodes; missing
    values count as 0). Node-aligned (``aligned=True``: node ``i`` of both graphs is the same
    node): ``nmi`` of the two Louvain partitions and ``evc_overlap``, the share of the
    original's top-``k`` eigenvector-centrality nodes that are also the synthetic graph's
    top ``k``; ``nan`` otherwise (a graph with new node ids has nothing to align).
    """
    k = max(1, int(top * orig.n_nodes))
    a = np.sort(orig.centrality)[::-1][:k]
    b = np.zeros(k)
    top_syn = np.sort(syn.centrality)[::-1][:k]
    b[:top_syn.size] = top_syn
    out = {
        "edges_rel": relative_error(orig.n_edges, syn.n_edges),
        "degree_ks": ks_distance(orig.degree_histogram, syn.degree_histogram),
        "degree_kl": kl_divergence(orig.degree_histogram, syn.degree_histogram),
        "transitivity_rel": relative_error(orig.transitivity, syn.transitivity),
        "avg_clustering_rel": relative_error(orig.avg_clustering, syn.avg_clustering),
        "modularity_rel": relative_error(orig.modularity, syn.modularity),
        "nmi": math.nan,
        "assortativity_abs": abs(syn.assortativity - orig.assortativity),
        "path_length_rel": relative_error(orig.avg_path_length, syn.avg_path_length),
        "diameter_rel": relative_error(orig.diameter, syn.diameter),
        "evc_overlap": math.nan,
        "evc_mae": float(np.abs(a - b).mean()),
    }
    if aligned:
        if syn.n_nodes != orig.n_nodes:
            raise InvalidParameterError(
                f"compare_structure: a node-aligned release has the original's "
                f"{orig.n_nodes} nodes (got {syn.n_nodes}).")
        import igraph

        out["nmi"] = float(igraph.compare_communities(orig.membership, syn.membership,
                                                      method="nmi"))
        # stable order: ties are broken by node index, the same way for both graphs
        ta = np.argsort(-orig.centrality, kind="stable")[:k]
        tb = np.argsort(-syn.centrality, kind="stable")[:k]
        out["evc_overlap"] = np.intersect1d(ta, tb).size / k
    return out


@dataclass(frozen=True)
class GraphUtility:
    """A synthetic graph from one release against the original."""

    mechanism: str
    neighbourhood: str
    epsilon: float | None
    n_nodes: int
    n_edges: int
    degree_ks: float
    avg_clustering: float
    assortativity: float
    avg_path_length: float
    lcc_fraction: float
    seconds: float
    notes: str = ""
    release: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _release_for(name: str, G: Graph, eps: float, *, h: int, theta: int, mpdc_tau: int,
                 backend: NoiseBackend, rng: np.random.Generator) -> tuple[Any, Any]:
    """(released table, Release) of one social mechanism at ε, public parameters given.

    Edge-DP and edge-PDP releases get the input's node set as their public universe (what
    ``--nodes FILE`` gives the CLI): edge neighbours share one node set, and the evaluation
    takes it to be public. Node-DP releases get none (the node set is what they protect).
    """
    from ..dk.personalized import release_personalized
    from ..dk.preferences import thesis_scheme
    from ..dk.release import release_dk
    from ..nodedp.theta_dk import theta_dk_release

    if name.startswith(("dk1-edge", "dk2-")):
        d = 1 if name == "dk1-edge" else 2
        kw: dict[str, Any] = {}  # dk1-edge, dk2-edge: the command's default (dense) form
        if name == "dk2-mpdc-edge":
            kw = {"microaggregation": "mpdc", "tau": mpdc_tau}
        elif name == "dk2-edge-thresholded":
            kw = {"form": "sampled"}  # thresholded at the public default τ = ceil(b ln N)
        r = release_dk(G, d=d, epsilon=eps, max_degree=h, nodes=G.node_ids, backend=backend,
                       rng=rng, **kw)
        return r.distribution, r.release
    if name in ("theta-dk1-node", "theta-dk2-node"):
        r2 = theta_dk_release(G, d=1 if name == "theta-dk1-node" else 2, epsilon=eps,
                              theta=theta, backend=backend, rng=rng)
        return r2.table, r2.release
    # personalized edge-DP, ST-dK: the thesis's preference mix scaled so that the liberal ε
    # is `eps` (conservative 0.01 eps, moderate 0.2 eps)
    prefs = thesis_scheme(G.node_ids, rng=rng, eps_c=0.01 * eps, eps_m=0.2 * eps, eps_l=eps)
    r3 = release_personalized(G, prefs, d=2, neighbourhood="edge", method="st", theta=h,
                              nodes=G.node_ids, backend=backend, rng=rng)
    return r3.table, r3.release


def social_utility(
    G: Graph,
    *,
    epsilons: Sequence[float] = (0.5, 1.0, 2.0, 5.0, 10.0),
    mechanisms: Sequence[str] = SOCIAL_MECHANISMS,
    max_degree: int = 64,
    theta: int = 16,
    mpdc_tau: int = 4,
    n_sources: int = 200,
    max_synthetic_edges: int = 2_000_000,
    backend: NoiseBackend,
    rng: np.random.Generator,
    progress: ProgressFn = log_progress,
) -> tuple[dict[str, Any], list[GraphUtility]]:
    """Synthetic graphs from released 1K / 2K against the original, across ε.

    Parameters
    ----------
    G : Graph
        The private graph.
    epsilons : sequence of float
        ε of every release (personalized: the liberal ε; conservative nodes get 0.01 ε).
    mechanisms : sequence of str
        A subset of :data:`SOCIAL_MECHANISMS`.
    max_degree : int
        Public degree bound ``h`` of the edge-DP and personalized releases.
    theta : int
        Public projection bound of the node-DP releases.
    mpdc_tau : int
        MPDC box side.
    n_sources : int
        BFS sources of the sampled path length.
    max_synthetic_edges : int
        A released table asking for more edges is not generated (noted in the row).
    backend : NoiseBackend
        Noise of the releases (OpenDP for real runs).
    rng : numpy.random.Generator
        Everything that is not DP noise (generation, sampling of sources, preferences).
    progress : ProgressFn

    Returns
    -------
    (dict, list of GraphUtility)
        Statistics of the original graph (plus an exact-2K reference row in the list, with
        ``epsilon=None``), then one row per mechanism and ε.
    """
    from ..dk import dk_distribution, dk_graph

    owner = "social_utility"
    for m in mechanisms:
        check_choice(m, "mechanisms", owner, SOCIAL_MECHANISMS)
    h = check_int(max_degree, "max_degree", owner, low=1)
    th = check_int(theta, "theta", owner, low=1)
    orig = graph_statistics(G, rng=rng, n_sources=n_sources)
    rows: list[GraphUtility] = []

    def measure(name: str, neighbourhood: str, eps: float | None, table: Any,
                release: dict[str, Any], t0: float) -> None:
        if table.d == 2:
            edges = int(table.total)
        else:  # 1K: half the degree sum
            edges = int((table.degrees[:, 0] * table.counts).sum() // 2)
        if edges > max_synthetic_edges:
            rows.append(GraphUtility(name, neighbourhood, eps, 0, edges, math.nan, math.nan,
                                     math.nan, math.nan, math.nan, time.perf_counter() - t0,
                                     f"not generated: the release asks for about {edges} "
                                     f"edges (> {max_synthetic_edges})", release))
            return
        syn = dk_graph(table, rng=rng).graph
        st = graph_statistics(syn, rng=rng, n_sources=n_sources)
        rows.append(GraphUtility(
            name, neighbourhood, eps, st["n_nodes"], st["n_edges"],
            ks_distance(orig["degree_histogram"], st["degree_histogram"]),
            st["avg_clustering"], st["assortativity"], st["avg_path_length"],
            st["lcc_fraction"], time.perf_counter() - t0, "", release))

    t0 = time.perf_counter()
    measure("exact-2k (no privacy)", "none", None, dk_distribution(G, 2), {}, t0)
    steps = [(m, e) for e in epsilons for m in mechanisms]
    for i, (m, eps) in enumerate(steps):
        progress("utility: synthetic graphs", i, len(steps))
        t0 = time.perf_counter()
        table, rel = _release_for(m, G, float(eps), h=h, theta=th, mpdc_tau=mpdc_tau,
                                  backend=backend, rng=rng)
        public = {k: getattr(rel, k) for k in ("mechanism", "neighbourhood", "epsilon",
                                               "epsilon_summary", "sensitivity")}
        measure(m, rel.neighbourhood, float(eps), table, public, t0)
    progress("utility: synthetic graphs", len(steps), len(steps))
    return orig, rows
