"""Moved to :mod:`graphanon.privacy.sensitivity_audit` (the brute-force sensitivity audit;
issue 37: no near-twin module names).

Deprecated alias: every name still imports from here, with a ``DeprecationWarning``.
"""

from .._compat import moved_module

__getattr__ = moved_module(__name__,
                           "graphanon.privacy.sensitivity_audit", removed_in="0.3.0")
