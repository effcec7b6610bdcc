"""Discovery against people on topics the support model never saw: ``check_answer`` without
citations beside cite-right 0.4, as balanced accuracy on rag24-support.

Usage::

    python bench/discovery.py [--data ../shared/data] [--draws 1000] [--shifts 20]

rag24-support's answers with the citations removed, each against every segment its run cited for
the topic (as ``bench/answer_api.py``); a NIST-labelled (sentence, segment) pair counts as kept
when the tool returns that segment for that sentence. **Balanced accuracy**: the mean of the
share of positive pairs kept and the share of the others left out, with two positive classes:
fully supported (``full``); supported or partially (``any``). The 3-level view (citejudge only:
cite-right has no partial level): kept as ``supported`` / kept as ``partial`` / not kept against
full / partial / no support, the mean recall of the three classes.

citejudge's support model is **cross-validated by topic**: each topic's answers are judged by a
model fitted on the other 13 topics' labels (:func:`judges.support.model.fit` on the support
features a CLI run records, as ``run_judge.py calibrate`` and ``bench/support_agreement.py`` fit
it), written to a file and named by the workflow's ``support.model``. Each answer is judged twice
under it: by the real discovery call, and with every source given as a citation of every sentence
(the judgments discovery decides from), to which :func:`judges.api.answer.discovered` applies the
rule at other settings. Rows:

* ``cite-right 0.4 align_citations``: on the sentences joined by a space (``answer_api.theirs``);
* ``check_answer, partial floor 0 (the rule before)``: partial sources kept whatever their P(full);
* ``check_answer as shipped``: the real discovery call (partial floor
  :data:`judges.api.answer.PARTIAL_FLOOR`, chosen on the pairs below: the floor with the best mean of
  the two balanced accuracies);
* ``floor chosen by nested CV by topic``: for each topic, the floor (0 to 0.7, step 0.02) with the
  best mean of the two balanced accuracies on the other 13 topics, each of those judged by a model
  fitted without it and without the scored topic, applied to the scored topic: what choosing the
  floor is worth on a topic neither the model nor the choice saw;
* ``supported only``: no partial source kept.

Then: per topic; a topic bootstrap of the gaps (topics drawn with replacement, every row scored
on the same draw); the stricter-label shift (supported and partial labels flipped to not supported
at random until 30% of the pairs are, the decisions unchanged); teams held out (the floor chosen
on the other teams' runs, applied to the team's). One CLI run and about 45 s of CPU.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import judges  # noqa: E402
from answer_api import labels, rag24, theirs  # noqa: E402
from judges.api.answer import PARTIAL_FLOOR, discovered  # noqa: E402
from judges.core.config import Workflow  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.meta.agreement import roc_auc  # noqa: E402
from judges.meta.calibrate import labelled_features  # noqa: E402
from judges.support.model import fit  # noqa: E402
from judges.core.vocabulary import FEATURES, LABEL_LEVEL  # noqa: E402

FLOORS = np.round(np.arange(0.0, 0.701, 0.02), 2)
KEPT_LEVEL = {"supported": 2, "partial": 1}
CLASSES = {"full": 2, "any": 1}  # positive: label level at least this


@dataclass
class Pair:
    """One labelled (sentence, segment) pair of a report."""

    topic: str
    run: str
    sentence: int
    label: int  # 0 / 1 / 2
    doc: str
    tried: list  # the sentence's CitedSources, every source a citation
    cite_right: bool  # cite-right kept the segment for the sentence
    shipped: int = 0  # the real discovery call: 0 not kept, 1 kept as partial, 2 as supported


def features(data: Path, out: Path):
    """The support features of rag24-support's labelled citations (one CLI run, default workflow)."""
    d = data / "rag24-support"
    wf = out / "default.workflow.yml"
    wf.write_text("{}\n")
    args = ["--judge", "citation", "--rag-topics", d / "topics.jsonl", "--rag-responses", d / "runs"]
    args += ["--out-dir", out, "--name", "r24", "--workflow", wf, "--corpus", d / "segments.jsonl"]
    run = subprocess.run([sys.executable, "run_judge.py", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if run.returncode:
        sys.exit(run.stderr)
    return labelled_features(read_assessments(out, "r24"), read_labels(d / "labels.jsonl"))


def without(table, topics: tuple[str, ...], out: Path) -> Workflow:
    """The default workflow with a support model fitted on every labelled citation but ``topics``'."""
    keep = ~table["topic_id"].isin(topics).to_numpy()
    x = table[[f"f_{f}" for f in FEATURES]].to_numpy(dtype=np.float64)
    model = fit(x[keep], table["y"].to_numpy()[keep], {}, features=FEATURES)
    path = out / f"without-{'-'.join(topics)}.json"
    model.write(path)
    return Workflow.model_validate({"support": {"model": str(path)}})


def tried(report: dict, workflow: Workflow) -> dict[int, list]:
    """Each sentence's judgment against every source (all given as its citations)."""
    ids = [i for i, _ in report["sources"]]
    checked = judges.check_answer(
        report["sentences"], report["sources"], citations=[ids] * len(report["sentences"]), workflow=workflow
    )
    return {s.index: list(s.citations) for s in checked.sentences}


def labelled(report: dict, gold: dict, judged: dict[int, list], found: dict) -> list[Pair]:
    out = []
    for i in range(len(report["sentences"])):
        for doc, _ in report["sources"]:
            label = gold.get((report["run_id"], report["topic_id"], i, doc))
            if label is not None:
                cited = doc in found.get(i, ())
                out.append(
                    Pair(report["topic_id"], report["run_id"], i, LABEL_LEVEL[label], doc, judged.get(i, []), cited)
                )
    return out


def kept(pairs: list[Pair], floor: float) -> np.ndarray:
    """The level each pair's segment is kept at by :func:`discovered` at ``floor`` (0: not kept)."""
    out = np.zeros(len(pairs), dtype=np.int64)
    for k, p in enumerate(pairs):
        for c in discovered(p.tried, floor):
            if c.source_id == p.doc:
                out[k] = KEPT_LEVEL[c.status]
    return out


class Scores:
    """Per-topic counts of a decision (kept level 0/1/2) against the labels, for pooled and
    resampled balanced accuracies."""

    def __init__(self, topics: np.ndarray, order: list[str], y: np.ndarray, level: np.ndarray):
        index = np.searchsorted(order, topics)
        self.counts = {}
        for name, at_least in CLASSES.items():
            pos = y >= at_least
            self.counts[name] = np.stack(
                [np.bincount(index, w, len(order)) for w in (pos & (level > 0), pos, ~pos & (level == 0), ~pos)]
            ).astype(np.float64)
        confusion = np.zeros((len(order), 3, 3))
        np.add.at(confusion, (index, y, level), 1)
        self.confusion = confusion

    def ba(self, name: str, weights: np.ndarray | None = None):
        """Balanced accuracy pooled over the topics; ``weights`` (draws x topics, each topic's count
        in a draw): one per draw."""
        c = self.counts[name].sum(axis=1) if weights is None else self.counts[name] @ weights.T
        return (c[0] / c[1] + c[2] / c[3]) / 2

    def per_topic(self, name: str) -> np.ndarray:
        c = self.counts[name]
        with np.errstate(invalid="ignore", divide="ignore"):
            return (c[0] / c[1] + c[2] / c[3]) / 2

    def three(self) -> float:
        m = self.confusion.sum(axis=0)
        return float(np.mean(np.diag(m) / m.sum(axis=1)))


def objective(y: np.ndarray, level: np.ndarray) -> float:
    """The mean of the two balanced accuracies, what a floor is chosen by."""
    out = []
    for at_least in CLASSES.values():
        pos = y >= at_least
        out.append(((level[pos] > 0).mean() + (level[~pos] == 0).mean()) / 2)
    return float(np.mean(out))


def best_floor(pairs: list[Pair], levels: dict[float, np.ndarray] | None = None) -> float:
    y = np.array([p.label for p in pairs])
    return max(FLOORS, key=lambda f: objective(y, levels[f] if levels else kept(pairs, f)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--draws", type=int, default=1000, help="topic bootstrap draws")
    ap.add_argument("--shifts", type=int, default=20, help="draws of the stricter labels")
    args = ap.parse_args()
    reports, gold = [r for r in rag24(args.data) if r["sources"]], labels(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        table = features(args.data, out)
        order = sorted(set(table["topic_id"]))
        pairs, inner, agree, sentences = [], {t: [] for t in order}, 0, 0
        for t in order:
            workflow = without(table, (t,), out)
            for r in (r for r in reports if r["topic_id"] == t):
                judged = tried(r, workflow)
                found = judges.check_answer(r["sentences"], r["sources"], workflow=workflow)
                for s in found.sentences:  # the real call keeps what the rule keeps from the judgments
                    sentences += 1
                    agree += [c.source_id for c in s.citations] == [c.source_id for c in discovered(judged[s.index])]
                these = labelled(r, gold, judged, {i: set(v) for i, v in theirs(r["sentences"], r["sources"]).items()})
                shipped = {s.index: {c.source_id: KEPT_LEVEL[c.status] for c in s.citations} for s in found.sentences}
                for p in these:
                    p.shipped = shipped[p.sentence].get(p.doc, 0)
                pairs += these
            for s in order:  # nested: topic s judged by a model fitted without s and t, for choosing t's floor
                if s != t:
                    workflow = without(table, (t, s), out)
                    for r in (r for r in reports if r["topic_id"] == s):
                        inner[t] += labelled(r, gold, tried(r, workflow), {})
    report(pairs, inner, order, agree, sentences, args)


def report(pairs: list[Pair], inner: dict, order: list[str], agree: int, sentences: int, args) -> None:
    y = np.array([p.label for p in pairs])
    topics = np.array([p.topic for p in pairs])
    before = kept(pairs, 0.0)
    nested, chosen = np.zeros(len(pairs), dtype=np.int64), []
    for t in order:
        floor = best_floor(inner[t])
        chosen.append(floor)
        at = np.flatnonzero(topics == t)
        nested[at] = kept([pairs[i] for i in at], floor)[:]
    rows = {
        "cite-right 0.4 align_citations": np.array([2 * p.cite_right for p in pairs]),
        "check_answer, partial floor 0 (the rule before)": before,
        f"check_answer as shipped (partial floor {PARTIAL_FLOOR})": np.array([p.shipped for p in pairs]),
        f"floor chosen by nested CV by topic ({min(chosen)}-{max(chosen)})": nested,
        "supported only": kept(pairs, 1.0),
    }
    scores = {name: Scores(topics, order, y, level) for name, level in rows.items()}
    mix = {k: int(np.sum(y == v)) for k, v in LABEL_LEVEL.items()}
    print(f"## Discovery on rag24-support, citations removed: {len(pairs)} labelled pairs, {len(order)} topics {mix}\n")
    print(
        f"(the real discovery call keeps what discovered() keeps from the judgments: {agree} of {sentences} "
        "sentences)\n"
    )
    print("Support model cross-validated by topic (each topic judged by a model fitted without it).\n")
    print(
        "| tool | balanced accuracy, full | balanced accuracy, any | 3-level | recall full | recall any "
        "| not supported left out | kept |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, level in rows.items():
        s = scores[name]
        three = "n/a" if name.startswith("cite-right") else f"{s.three():.3f}"
        print(
            f"| {name} | {s.ba('full'):.3f} | {s.ba('any'):.3f} | {three} | {np.mean(level[y == 2] > 0):.3f} "
            f"| {np.mean(level[y >= 1] > 0):.3f} | {np.mean(level[y == 0] == 0):.3f} | {int(np.sum(level > 0))} |"
        )
    print(
        f"\nThe floor with the best mean of the two balanced accuracies on all {len(order)} topics' pairs (as "
        f"judged above): {best_floor(pairs)} (judges.api.answer.PARTIAL_FLOOR: {PARTIAL_FLOOR})"
    )
    bounds(pairs, y)
    names = list(rows)
    cr, old, new, nest = (scores[n] for n in names[:4])
    print("\n### Per topic (balanced accuracy full / any)\n")
    print("| topic | pairs | cite-right | before | as shipped | nested floor | the floor nested CV chose |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for k, t in enumerate(order):
        cells = " | ".join(f"{s.per_topic('full')[k]:.3f} / {s.per_topic('any')[k]:.3f}" for s in (cr, old, new, nest))
        print(f"| {t} | {int(np.sum(topics == t))} | {cells} | {chosen[k]} |")
    rng = np.random.default_rng(0)
    draws = np.stack(
        [np.bincount(rng.integers(0, len(order), len(order)), minlength=len(order)) for _ in range(args.draws)]
    )
    print(f"\n### Gaps: on all topics (90% interval over {args.draws} topic resamples; share of draws > 0)\n")
    print("| gap | balanced accuracy, full | balanced accuracy, any | the mean of the two |")
    print("|---|---|---|---|")
    for label, a, b in (
        ("as shipped - cite-right", new, cr),
        ("as shipped - before", new, old),
        ("nested floor - cite-right", nest, cr),
        ("nested floor - before", nest, old),
        ("before - cite-right", old, cr),
    ):
        gaps = [(a.ba(c) - b.ba(c), a.ba(c, draws) - b.ba(c, draws)) for c in CLASSES]
        gaps.append(tuple(sum(g[k] for g in gaps) / len(CLASSES) for k in (0, 1)))
        cells = []
        for gap, d in gaps:
            lo, hi = np.quantile(d, [0.05, 0.95])
            cells.append(f"{gap:+.3f} ({lo:+.3f} to {hi:+.3f}; {np.mean(d > 0):.0%})")
        print(f"| {label} | {' | '.join(cells)} |")
    shift(rows, topics, order, y, args.shifts)
    teams(pairs, y)


def bounds(pairs: list[Pair], y: np.ndarray) -> None:
    """What the support model's probabilities of a pair allow, whatever discovery's rule: their
    ROC-AUCs and the best balanced accuracy of one threshold on either (chosen on these pairs)."""
    own = [next((c for c in p.tried if c.source_id == p.doc), None) for p in pairs]
    probability = {
        "P(full)": np.array([c.p_full if c else 0.0 for c in own]),
        "P(any)": np.array([c.p_any if c else 0.0 for c in own]),
    }
    said = []
    for c, at_least in CLASSES.items():
        pos = y >= at_least
        for name, p in probability.items():
            best = max(((p[pos] >= t).mean() + (p[~pos] < t).mean()) / 2 for t in np.linspace(0, 1, 101))
            said.append(f"{c}: {name} ROC-AUC {roc_auc(p, pos):.3f}, best balanced accuracy {best:.3f}")
    print("\nThe pairs' own probabilities (cross-validated), one threshold each: " + "; ".join(said))


def shift(rows: dict, topics: np.ndarray, order: list[str], y: np.ndarray, n: int) -> None:
    """Stricter labels: supported / partial flipped to not supported at random until 30% are."""
    rng = np.random.default_rng(1)
    got = {name: {c: [] for c in CLASSES} for name in rows}
    for _ in range(n):
        strict = y.copy()
        flip = int(np.ceil(0.3 * len(y))) - int(np.sum(y == 0))
        strict[rng.choice(np.flatnonzero(y > 0), flip, replace=False)] = 0
        for name, level in rows.items():
            s = Scores(topics, order, strict, level)
            for c in CLASSES:
                got[name][c].append(s.ba(c))
    print(f"\n### Stricter labels: 30% not supported (from {np.mean(y == 0):.0%}), {n} draws: mean (min to max)\n")
    print("| tool | balanced accuracy, full | balanced accuracy, any |")
    print("|---|---|---|")
    for name in rows:
        cells = [f"{np.mean(v):.3f} ({min(v):.3f} to {max(v):.3f})" for v in got[name].values()]
        print(f"| {name} | {' | '.join(cells)} |")
    names = list(rows)
    for a, b in ((2, 0), (2, 1), (3, 0)):
        gaps = [np.array(got[names[a]][c]) - np.array(got[names[b]][c]) for c in CLASSES]
        said = ", ".join(f"{c} {np.mean(g):+.3f} ({g.min():+.3f} to {g.max():+.3f})" for c, g in zip(CLASSES, gaps))
        print(f"\n{names[a]} minus {names[b]}: {said}")


def teams(pairs: list[Pair], y: np.ndarray) -> None:
    """The floor chosen on the other teams' runs (topic-cross-validated judgments), applied to a team's."""
    team = np.array([p.run.split(".")[0] for p in pairs])
    levels = {f: kept(pairs, f) for f in FLOORS}
    level, chosen = np.zeros(len(pairs), dtype=np.int64), []
    for t in sorted(set(team)):
        rest = team != t
        floor = max(FLOORS, key=lambda f: objective(y[rest], levels[f][rest]))
        chosen.append(floor)
        level[~rest] = levels[floor][~rest]
    s = {c: ((level[y >= a] > 0).mean() + (level[y < a] == 0).mean()) / 2 for c, a in CLASSES.items()}
    print(
        f"\nTeams held out ({len(chosen)} teams, floor chosen on the other teams' runs: {min(chosen)}-{max(chosen)}): "
        f"balanced accuracy full {s['full']:.3f}, any {s['any']:.3f}"
    )


if __name__ == "__main__":
    main()
