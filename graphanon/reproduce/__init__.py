"""Paper reproductions: the seeds' mechanisms as written, next to the secure ones.

Each function here reproduces a variant that a source paper states and that graphanon's
secure mechanism deliberately does not use — because it leaks (then its Release record claims
no privacy: ``neighbourhood = "none"``, no ε) or because it is needlessly loose (then the claim
stays, and a warning says what it costs). Every one warns with a
:class:`~graphanon.errors.ReproductionWarning`, and each is built from the same pieces as the
secure mechanism it shadows. The CLI reaches them through the options it always had
(``release-dk --domain observed``, ``--sensitivity-rule thesis``, ``--projection ser``,
``release-personalized --calibration thesis``, ``release-degrees --counts cauchy``, ...).

One module per source:

* :mod:`.dk_thesis` — ``004_*.txt`` chapter 6: observed-domain dK releases, Lemma 5's
  ``(4h + 1)·z`` calibration;
* :mod:`.node_dp_thesis` — chapter 7: Stable-Edge-Removal as the release projection, the
  degree ordering of Example 7;
* :mod:`.personalized_thesis` — chapter 8: per-entry sensitivities, data-dependent per-entry
  ε, unit sampling, project-then-truncate;
* :mod:`.rps_seed` — ``002_*.txt``: RPS's smooth-sensitivity Cauchy region counts and the
  lower-boundary summary.

Submodules are imported on use: ``from graphanon.reproduce.dk_thesis import
release_dk_thesis``.
"""
