"""Moved to :mod:`graphanon.evaluate.empirical_audit` (the empirical ε lower bound;
issue 37: no near-twin module names).

Deprecated alias: every name still imports from here, with a ``DeprecationWarning``.
"""

from .._compat import moved_module

__getattr__ = moved_module(__name__,
                           "graphanon.evaluate.empirical_audit", removed_in="0.3.0")
