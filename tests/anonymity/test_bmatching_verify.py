"""graphanon.anonymity.bmatching_verify: the adaptive-anonymity verifier finds every violation."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.anonymity.bmatching import (
    MASKED,
    verify_adaptive_anonymity,
)
from graphanon.errors import InvalidParameterError


def test_verification_reports_violations():
    X = np.array([[0, 0], [0, 1], [1, 1], [1, 0]])
    v = verify_adaptive_anonymity(X, X, 2)  # nothing masked: every row unique
    assert not v.ok and v.original_degree_min == 1
    assert any("original row 0 is compatible with 1 released rows" in m for m in v.violations)
    Y = np.full_like(X, MASKED)
    assert verify_adaptive_anonymity(X, Y, 4).ok
    wrong = X.copy()
    wrong[0, 0] = 1  # a changed (not masked) value breaks the true matching
    v = verify_adaptive_anonymity(X, wrong, 1)
    assert not v.perfect_matching



@pytest.mark.parametrize("bad", [7, 9, -2, 3])
def test_verification_refuses_codes_that_no_row_holds(bad):
    """A released code outside its attribute's range would be read as another category (it
    was clamped): the check refuses it instead of calling the release compatible."""
    X = np.array([[0, 0], [1, 0], [2, 0]])
    Y = np.array([[0, 0], [1, 0], [bad, 0]])
    with pytest.raises(InvalidParameterError, match=rf"row 2, attribute 0 holds {bad}"):
        verify_adaptive_anonymity(X, Y, 1)
    assert verify_adaptive_anonymity(X, np.array([[0, 0], [1, 0], [-1, 0]]), 1).ok is not None
    with pytest.raises(InvalidParameterError, match="integer codes"):
        verify_adaptive_anonymity(X, Y + 0.5, 1)
