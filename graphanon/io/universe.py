"""Moved to :mod:`graphanon.io.id_lists` (issue 37: ``graphanon.universe`` is the public
universe, this module only reads its files).

Deprecated alias: every name still imports from here, with a ``DeprecationWarning``.
"""

from .._compat import moved_module

__getattr__ = moved_module(__name__, "graphanon.io.id_lists", removed_in="0.3.0")
