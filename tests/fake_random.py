"""A stand-in for ``os.urandom`` that starts with chosen bytes (the exact samplers' tests)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def then_random(calls: int, first: bytes = b"\0", seed: int = 0) -> Callable[[int], bytes]:
    """A random-bytes source whose first ``calls`` calls repeat the byte ``first``; the later
    calls are seeded random bytes."""
    rng = np.random.default_rng(seed)
    made = [0]

    def source(size: int) -> bytes:
        made[0] += 1
        return first * size if made[0] <= calls else rng.bytes(size)

    return source
