"""Moved to :mod:`graphanon.demos.job` (issue 37: one name for the demo, ``demos/``).

Deprecated alias: every name still imports from here, with a ``DeprecationWarning``.
"""

from ._compat import moved_module

__getattr__ = moved_module(__name__, "graphanon.demos.job", removed_in="0.3.0")
