"""Meta-evaluation of the judge's leaderboard on rag24-support against NIST's human leaderboard:
every agreement figure ``meta-evaluate`` reports, with its BCa interval over topics, the
percentile interval it replaced beside it, and how many of the reported intervals contain their
estimate.

Usage::

    python bench/meta_evaluation.py [--data /work/shared/data] [--out /tmp/meta-bench] [--resamples 1000]

Judges ``rag24-support`` (45 runs, 14 topics; the shipped support model, which was fitted on these
topics: in-sample) with ``run_judge.py`` into ``--out`` unless a leaderboard is already there,
then runs ``run_judge.py meta-evaluate --truth-topics`` (the assessors judged each run on its own
topics) against ``truth.eval.txt`` and prints the rows of ``WEIGHTED_PRECISION`` against
``HUMAN_WEIGHTED_PRECISION``. The percentile interval is recomputed here from the same resamples
(SciPy's ``bootstrap(method="percentile")``, same seed) to show why it was replaced.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judges.formats.leaderboards import read_any_leaderboard  # noqa: E402
from judges.meta import bootstrap, correlation, metaeval  # noqa: E402


def percentile(truth, judged, tm: str, em: str, resamples: int) -> dict[str, tuple[float, float]]:
    """The percentile interval of each ranked correlation (the intervals ``meta-evaluate`` gave before)."""
    from scipy import stats

    opts = metaeval.MetaOptions(truth_topics=True, resamples=resamples)
    p = metaeval.paired_scores(truth, judged, tm, em, opts)
    methods = [m for m in correlation.DEFAULT_METHODS if not correlation.is_per_topic(m)]

    def stat(idx, axis=-1):
        idx = np.atleast_2d(np.asarray(idx, dtype=np.intp))
        ta, tb = p.resample(idx)
        return np.stack([correlation.correlate_rows(ta, tb, m) for m in methods])

    res = stats.bootstrap(
        (np.arange(p.resample_topics),),
        stat,
        vectorized=True,
        batch=bootstrap.BATCH,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(bootstrap.DEFAULT_SEED),
    )
    dist = np.asarray(res.bootstrap_distribution).reshape(len(methods), -1)
    return {
        m: (float(np.nanquantile(dist[i], 0.025)), float(np.nanquantile(dist[i], 0.975))) for i, m in enumerate(methods)
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=Path("/tmp/meta-bench"))
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    data = args.data / "rag24-support"
    lb = args.out / "R.leaderboard.txt"
    if not lb.exists():
        subprocess.run(
            [sys.executable, "run_judge.py", "--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs",
             "--corpus", data / "segments.jsonl", "--out-dir", args.out, "--name", "R"],
            cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    out = args.out / "meta.jsonl"
    subprocess.run(
        [sys.executable, "run_judge.py", "meta-evaluate", "--truth", data / "truth.eval.txt", lb, "--truth-topics",
         "--bootstrap", str(args.resamples), "--output", out],
        cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    rows = pd.read_json(out, lines=True)
    truth = metaeval.Leaderboard("truth", data / "truth.eval.txt", read_any_leaderboard(data / "truth.eval.txt"))
    judged = metaeval.Leaderboard("judge", lb, read_any_leaderboard(lb))
    tm, em = "HUMAN_WEIGHTED_PRECISION", "WEIGHTED_PRECISION"
    old = percentile(truth, judged, tm, em, args.resamples)
    print(f"rag24-support, {em} against {tm}, runs ranked by their mean over the truth's topics of each run")
    print(f"{'method':<18} {'value':>7}  {'95% BCa interval':<18}  {'95% percentile (before)':<22}")
    for r in rows[(rows.truth_measure == tm) & (rows.eval_measure == em)].itertuples():
        before = old.get(r.method)
        was = f"[{before[0]:.3f}, {before[1]:.3f}]" if before else "-"
        print(f"{r.method:<18} {r.value:>7.3f}  [{r.ci_low:.3f}, {r.ci_high:.3f}]{'':<2}  {was}")
    shown = rows[rows.ci_low.notna()]
    inside = ((shown.ci_low <= shown.value + 1e-12) & (shown.value <= shown.ci_high + 1e-12)).sum()
    print(f"intervals containing their estimate: {inside} of {len(shown)} (every measure pair, every method)")


if __name__ == "__main__":
    main()
