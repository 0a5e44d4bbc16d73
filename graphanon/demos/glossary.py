"""The glossary of the demo report: one or two plain sentences per term it uses.

Grouped by topic (privacy notions, syntactic anonymity, statistics and their releases, node
and personalized DP, error measures, the evaluation). ``EVALUATION_TERMS`` names the entries
the ``graphanon evaluate`` report needs.
"""

from __future__ import annotations

__all__ = ["EVALUATION_TERMS", "GLOSSARY", "glossary"]

GLOSSARY: tuple[tuple[str, str], ...] = (
    # ---- privacy notions
    ("publish/ and operator/",
     "The demo's two output folders: publish/ holds only secure releases with their records "
     "and may be handed out; operator/ holds the inputs, exact statistics, insecure runs and "
     "reports, and must stay inside."),
    ("Release record (.release.json)",
     "The machine-readable claim next to every published file: mechanism, protected unit "
     "(neighbourhood), ε or k, sensitivity and public parameters; it holds nothing read from "
     "the data."),
    ("Differential privacy (DP), ε",
     "A release is ε-DP if adding or removing the protected unit changes the probability of "
     "every possible output by at most a factor e^ε. Smaller is stronger: ε = 1 allows a "
     "factor of 2.7, ε = 5 a factor of 148, ε = 10 a factor of 22,000."),
    ("Edge-DP",
     "DP where the protected unit is one edge (one relationship, or one user–attribute cell) "
     "and the set of nodes is public. A person with m edges is protected only at about m·ε."),
    ("Node-DP",
     "DP where the protected unit is one node with all its edges (one person, or one user's "
     "whole row): the output hardly depends on whether that person is in the data at all."),
    ("Personalized DP (edge-PDP, node-PDP)",
     "Every node v has its own ε_v from a public preference table: edge-PDP protects the edge "
     "uv at min(ε_u, ε_v), node-PDP protects node v at ε_v."),
    ("Guaranteed ε",
     "The ε a node actually receives from a personalized mechanism under the strict "
     "calibration, never above its preference; 0 means nothing about the node can leak "
     "because the node is left out of the statistic."),
    ("μ",
     "The threshold of TP-dK and ST-dK, here the average preference of the public table: "
     "TP-dK drops every node whose preference is below μ, ST-dK keeps such a node's records "
     "only with a probability that shrinks with its ε."),
    ("Strict vs thesis calibration",
     "Strict: the audited noise calibration that delivers each node's guaranteed ε. Thesis: "
     "the calibration of the thesis's chapter 8 as written; it fails the audit and claims "
     "no privacy."),
    ("Sensitivity",
     "The largest change (L1) of the released numbers when one protected unit changes; the "
     "noise scale is sensitivity ÷ ε, and it must follow from public parameters, never from "
     "the data."),
    ("Discrete Laplace noise, OpenDP",
     "Integer noise that is most likely 0 and falls off exponentially, added to every count; "
     "graphanon draws it through the OpenDP library from the operating system's secure "
     "random source."),
    ("Seeded insecure noise (numpy-insecure)",
     "Noise from a seeded random generator, so a run can be reproduced; anyone who knows the "
     "seed can subtract it, so such outputs protect nothing and stay in operator/."),
    ("Universe",
     "The public list of who or what exists (books, users, attribute values) that an "
     "edge-level release assumes; it is given by the operator, never read off the data."),
    ("Pseudonym",
     "A keyed per-release random-looking id that replaces a user id in a published list; two "
     "releases cannot be joined on their pseudonyms."),
    # ---- syntactic anonymity
    ("k (k-anonymity)",
     "Every published row is shared by at least k users, so a person looked up by their "
     "published attributes is one of at least k candidates. No ε: it is not DP and says "
     "nothing about what all k candidates have in common."),
    ("Smooth-k-anonymity",
     "k-anonymity for user–feature lists where a class's published row may also contain a "
     "feature that at least half of the class has (Definition 3.5), instead of only removing "
     "features."),
    ("Suppression, Mondrian",
     "Suppression publishes, for each class, the features all its members share (it only "
     "removes); Mondrian splits the users on one feature at a time while both parts keep at "
     "least k users, then publishes each part's shared features."),
    ("Jaccard, suppressed, created",
     "Shares of all true-or-published (user, feature) pairs: Jaccard = pairs in both, "
     "suppressed = true pairs removed, created = published pairs that are not true; they sum "
     "to 1."),
    ("δ (adaptive anonymity)",
     "Each user's own anonymity level: the masked table must make the user's true row "
     "compatible with at least δ published rows, and each published row compatible with at "
     "least δ true rows."),
    ("b-matching, symmetric b-matching",
     "The compatibility between true and published rows is a δ-regular bipartite graph "
     "found by b-matching (Choromanski, Jebara & Tang, NIPS 2013); the symmetric variant also "
     "requires that row i compatible with j implies j compatible with i."),
    ("Stars (*), utility",
     "Stars are the masked cells of the b-matching release; utility = 1 − stars ÷ "
     "(rows × attributes), so 1 means nothing was masked."),
    ("Lemma 4.5 (b-matching paper)",
     "If the compatibility graph is symmetric and the adversary already knows c of the true "
     "row-to-person matches, every other person i is still (δ_i − c)-anonymous: a guess at "
     "their row succeeds with probability at most 1/(δ_i − c)."),
    # ---- randomized response
    ("Randomized response, p",
     "Each cell of the user × attribute table keeps its true value with probability p and is "
     "otherwise replaced by a fair coin; p = tanh(ε/2). A user's whole row of |F| cells costs "
     "|F|·ε (node level)."),
    # ---- dK statistics
    ("dK-series: 1K, 2K, 3K",
     "1K is the degree histogram (how many nodes have each degree); 2K counts, for each pair "
     "of degrees (i, j), the edges joining a degree-i and a degree-j node; 3K does the same "
     "for paths and triangles of three nodes."),
    ("h (public degree bound), top-coding",
     "A public cap on degrees: a higher degree is counted as h. It fixes the 2K domain "
     "(h(h+1)/2 cells) and the 2K edge-DP sensitivity 4h − 3."),
    ("Domain cells, noisy answers",
     "All h(h+1)/2 degree pairs a 2K release covers, observed or not (noising only observed "
     "ones would reveal which exist); 'noisy answers' counts how many numbers get noise."),
    ("MDAV-dK, MPDC-dK (microaggregation)",
     "The domain cells are grouped into clusters chosen without looking at the data (MDAV: "
     "groups of k nearby degree pairs; MPDC: boxes of side τ), noise is added to each "
     "cluster's sum, which is then spread evenly over its cells: less noise in total, less "
     "detail inside a cluster."),
    ("SAE",
     "Sum of absolute errors of microaggregation: the total distance of the degree pairs from "
     "their cluster's mean pair (thesis eq. 6.2); lower means the clusters blur less."),
    ("dK-graph, synthetic graph",
     "A random graph generated to have a given 2K table; one generated from a private release "
     "is as private as the release (post-processing)."),
    ("Clustering, assortativity, path-length KS",
     "Average local clustering: how often two neighbours of a node are neighbours too. "
     "Assortativity: correlation of the degrees at the two ends of an edge. Path-length KS: "
     "KS distance between the shortest-path-length distributions of two graphs."),
    # ---- node DP
    ("θ (theta), projection",
     "A public degree bound for node-DP: the graph is first cut down so that no node has more "
     "than θ edges, which bounds how much one person can change the statistic."),
    ("EAD, SER",
     "Edge-addition (EAD) projection: edges are added in a public keyed random order, skipping "
     "an edge whose endpoint already has θ; audited. Stable-edge-removal (SER): the thesis's "
     "alternative, which breaks the claimed node sensitivity and claims no privacy here."),
    ("θ-dKε",
     "The node-DP 1K or 2K release of the EAD projection at θ, with discrete Laplace noise "
     "for sensitivity 2θ + 1 (1K) or θ(2θ + 1) (2K) (Algorithm 6 of the thesis)."),
    ("RPS",
     "Recursive Partitioning and Summarization: a node-DP degree-sequence release that splits "
     "the degree range at privately chosen quantiles and releases exactly N degrees."),
    ("Hay et al. (constrained inference)",
     "An edge-DP degree-sequence release: noise on the sorted degree sequence, then made "
     "sorted again (isotonic regression); more accurate than node-DP, protects far less."),
    # ---- personalized mechanisms
    ("PDP_min, LL-dK, AG-dK",
     "Personalized mechanisms that, calibrated strictly, give every node the smallest "
     "preference ε_min of the table: PDP_min noises every cell at ε_min, LL-dK turns out "
     "identical, AG-dK noises public groups of k cells."),
    ("TP-dK, ST-dK",
     "TP-dK (threshold) drops every node whose preference is below μ and releases the rest "
     "at μ; ST-dK (sampling) keeps each record with a probability set by its ε, so each node "
     "gets min(ε_v, μ)."),
    # ---- error measures
    ("L1, L1 ÷ true total",
     "L1: the sum of absolute differences between a released table and the true one. L1 ÷ "
     "true total divides it by the true table's total count (nodes or edges): above 1 the "
     "errors exceed everything the table counts."),
    ("Euclidean",
     "The square root of the sum of squared differences between released and true tables; "
     "like L1 but dominated by the largest errors."),
    ("KS",
     "Kolmogorov–Smirnov distance: the largest gap between the cumulative distributions of "
     "two histograms, from 0 (same shape) to 1."),
    ("EMD",
     "Earth mover's distance between two degree distributions, in degrees: how far, on "
     "average, each node's degree must move to turn one into the other."),
    # ---- evaluation
    ("Empirical ε lower bound",
     "A statistical audit runs a mechanism many times on two neighbouring inputs and bounds "
     "from below how well its outputs tell them apart; a bound above the claimed ε proves the "
     "claim wrong, a bound below it proves nothing more."),
    ("Control (audit)",
     "A deliberately mis-calibrated mechanism (half the sensitivity) that the audit must "
     "catch; if it is not caught, the audit is too weak to mean anything. Being caught shows "
     "only that the test detects noise below the mechanism's own calibration, not that a "
     "sensitivity derivation is right."),
    ("Clopper–Pearson, confidence",
     "An exact confidence interval for a success rate, used to turn the audit's error rates "
     "into an ε bound that holds with the stated probability."),
    ("q, |C|, P(link)",
     "Linkage attack: the adversary knows q attributes of a person; C is the set of published "
     "rows consistent with them, and P(link) the probability of picking the person's own "
     "row."),
    ("AUC, accuracy",
     "Quality of an income classifier trained on a release and tested on true data: accuracy "
     "is the share of correct predictions, AUC the chance a random high earner is ranked above "
     "a random low earner (0.5 = guessing)."),
)

#: Entries the ``graphanon evaluate`` report uses.
EVALUATION_TERMS: tuple[str, ...] = (
    "Differential privacy (DP), ε", "Edge-DP", "Node-DP", "Personalized DP (edge-PDP, node-PDP)",
    "Sensitivity", "Discrete Laplace noise, OpenDP", "k (k-anonymity)", "Smooth-k-anonymity",
    "Suppression, Mondrian", "δ (adaptive anonymity)", "Randomized response, p",
    "dK-series: 1K, 2K, 3K", "h (public degree bound), top-coding",
    "MDAV-dK, MPDC-dK (microaggregation)", "dK-graph, synthetic graph",
    "Clustering, assortativity, path-length KS", "θ (theta), projection", "EAD, SER",
    "θ-dKε", "TP-dK, ST-dK", "KS", "Empirical ε lower bound", "Control (audit)",
    "Clopper–Pearson, confidence", "q, |C|, P(link)", "AUC, accuracy",
)


def glossary(terms: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """The entries named by ``terms`` (in the glossary's order), or all of them."""
    if terms is None:
        return list(GLOSSARY)
    unknown = set(terms) - {t for t, _ in GLOSSARY}
    if unknown:
        raise KeyError(f"not in the glossary: {sorted(unknown)}")
    return [(t, m) for t, m in GLOSSARY if t in terms]
