"""How private, how useful: re-identification risk, empirical privacy audits, downstream utility.

- :mod:`.risk` — linkage attacks with ``q`` known features on anonymized user–feature releases
  (candidate sets, singling out, correct-link probability, theoretical bounds).
- :mod:`.audit` — empirical lower bounds on ε of the DP mechanisms (Clopper–Pearson bounds on
  a threshold test), OpenDP noise by default; :mod:`.pairs` — the worst-case neighbouring
  pairs; :mod:`.targets` — the DP commands under audit.
- :mod:`.utility` — income classifiers on anonymized Adult (scikit-learn, the ``eval`` extra)
  and synthetic graphs from released 1K / 2K against the original.
- :mod:`.suites` / :mod:`.report` — named suites or TOML files, run into one HTML + JSON report
  (``graphanon evaluate``).

Every number this package computes uses the private input: it is for the operator, not for
publication.
"""

from .empirical_audit import (
    EmpiricalAudit,
    ReplayBackend,
    audit_mechanism,
    clopper_pearson_upper,
    epsilon_lower_bound,
)
from .pairs import Candidate
from .risk import (
    AttackTargets,
    ReleasedRows,
    RiskRow,
    draw_targets,
    feature_groups,
    reidentification_risk,
)
from .suites import SUITES, SuiteConfig, load_suite, named_suite, resolve_suite, run_suite
from .targets import AUDIT_MECHANISMS, AuditTarget, audit_targets, miscalibrated_dk1
from .utility import (
    ClassifierScore,
    GraphUtility,
    adult_utility,
    graph_statistics,
    load_adult_labeled,
    social_utility,
)

__all__ = [
    "AUDIT_MECHANISMS",
    "SUITES",
    "AttackTargets",
    "AuditTarget",
    "Candidate",
    "ClassifierScore",
    "EmpiricalAudit",
    "GraphUtility",
    "ReleasedRows",
    "ReplayBackend",
    "RiskRow",
    "SuiteConfig",
    "adult_utility",
    "audit_mechanism",
    "audit_targets",
    "clopper_pearson_upper",
    "draw_targets",
    "epsilon_lower_bound",
    "feature_groups",
    "graph_statistics",
    "load_adult_labeled",
    "load_suite",
    "miscalibrated_dk1",
    "named_suite",
    "reidentification_risk",
    "resolve_suite",
    "run_suite",
    "social_utility",
]
