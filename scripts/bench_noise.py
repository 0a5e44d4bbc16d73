"""Benchmark: discrete Laplace noise on large integer count vectors (OpenDP vs numpy).

Prints a table and optionally writes JSON (``--json PATH``). Timings on a shared machine are
noisy.

Usage: ``python scripts/bench_noise.py [--sizes 100000 1000000] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from graphanon.privacy.noise import InsecureNoiseWarning, get_backend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", dest="json_path")
    args = ap.parse_args()
    warnings.simplefilter("ignore", InsecureNoiseWarning)
    rows = []
    for n in args.sizes:
        counts = np.random.default_rng(0).integers(0, 50, n)
        scales = np.repeat([1.0, 2.0, 5.0, 10.0], -(-n // 4))[:n]
        for name in ("opendp", "numpy-insecure"):
            rng = np.random.default_rng(1) if name != "opendp" else None
            backend = get_backend(name, rng=rng)
            for op in ("discrete_laplace", "discrete_laplace_scales (4 scales)"):
                best = float("inf")
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    if op == "discrete_laplace":
                        backend.discrete_laplace(counts, sensitivity=2, epsilon=1.0)
                    else:
                        backend.discrete_laplace_scales(counts, scales)
                    best = min(best, time.perf_counter() - t0)
                rows.append({"backend": name, "operation": op, "n": n, "seconds": best,
                             "per_million_s": best / n * 1e6})
    print(f"{'backend':<15} {'operation':<36} {'n':>10} {'seconds':>9} {'s / 1M':>8}")
    for r in rows:
        print(f"{r['backend']:<15} {r['operation']:<36} {r['n']:>10} {r['seconds']:>9.3f} "
              f"{r['per_million_s']:>8.3f}")
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
