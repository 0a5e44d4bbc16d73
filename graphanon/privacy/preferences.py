"""Moved to :mod:`graphanon.dk.preferences`.

Mechanisms live in their family (docs/architecture.md).

Deprecated alias: every name still imports from here, with a ``DeprecationWarning``.
"""

from .._compat import moved_module

__getattr__ = moved_module(__name__, "graphanon.dk.preferences",
                           removed_in="0.3.0")
