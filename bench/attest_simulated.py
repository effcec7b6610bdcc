"""What would an LLM add? The attestation cascade against a SIMULATED judge of known accuracy.

No capable LLM runs on these machines, so this bench measures the cascade with a stand-in: a
loopback OpenAI-compatible server (127.0.0.1, stopped at the end) that answers the attestation
question from the NIST labels of ``rag24-support``. Asked ``yes_no``: YES when the assessors said
the cited segment fully supports the sentence, NO otherwise, and the opposite answer for a share
``error`` of the questions. Asked ``support_level``: the assessors' level (FULL / PARTIAL / NONE),
and for a share ``error`` of the questions one of the two other levels. Which questions are
answered wrongly is chosen by a hash of the question, so the same question always gets the same
answer.
It is a SIMULATION of an LLM of known accuracy, not a model: its figures say what the cascade
does with answers of that quality, not what any real LLM would reach.

Usage::

    python bench/attest_simulated.py [--data ../shared/data] [--errors 0 0.1 0.2]
                                     [--budgets 0.1 0.2 0.3 0.5 1] [--questions yes_no support_level]
                                     [--plan-order on off] [--answer-error default true 0.05]

For each question, error rate, budget and ``attest.plan_order`` (on: the plan weighs a citation's
gain by how many runs its run could be misordered with; off: leverage x spread alone) it runs the
real CLI (``--attest uncertain`` with ``attest.budget``, which judges, plans over the session and
then asks; budget 1 = ``--attest all``) and ``attest.answer_error`` (the error rate the Bayes update
assumes of the answers: ``default``, the workflow's; ``true``, the stand-in's real error rate; a
number; or ``estimate``, estimated from the session's own answers, printed beside the stand-in's rate
with its 90% interval and the answers it rests on) on rag24-support, joins the assessments to the labels and
prints run tau, exact three-level agreement, kappa, the share of citations sent and how many the
budget asked for (:func:`judges.meta.calibrate.agreement`). The shipped support model is scored on the topics
it was fitted on here (the cascade's gain is what this bench is for; the model's own
cross-validated scores are in ``bench/support_agreement.py``). For comparison it also prints the
grade table before the support model (the LLM moves alignment's status one level; alignment
thresholds 0.4 / 0.25) with the same simulated answers asked about every citation, computed from
an alignment-only run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.attest.answers import estimate_error  # noqa: E402
from judges.core.config import AttestSettings  # noqa: E402
from judges.formats.tables import read_assessments  # noqa: E402
from judges.formats.labels import read_labels  # noqa: E402
from judges.meta.calibrate import STATUS_LEVEL, labelled_features  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import standin_batch  # noqa: E402
from standin_batch import Oracle, flipped, reply  # noqa: E402
import support_agreement  # noqa: E402  (its judge(): the CLI with a workflow)

OLD_TABLE = {
    ("supported", "YES"): 2,
    ("supported", "NO"): 1,
    ("partial", "YES"): 2,
    ("partial", "NO"): 0,
    ("unsupported", "YES"): 1,
    ("unsupported", "NO"): 0,
}


def serve(oracle: Oracle, error: float):
    """The stand-in on loopback answering from ``oracle`` (bench/standin_batch.py's server)."""
    return standin_batch.serve(lambda body: reply(oracle, body["messages"], error))


def judge(data: Path, out: Path, name: str, workflow: dict, extra: list[str]) -> None:
    """The real CLI on rag24-support (its segments as the corpus) with ``workflow``."""
    d = data / "rag24-support"
    support_agreement.judge(
        d / "topics.jsonl", d / "runs", out, name, workflow, "--corpus", str(d / "segments.jsonl"), *extra
    )


def scored(out: Path, name: str, labels) -> tuple:
    a = read_assessments(out, name)
    rows = labelled_features(a, labels)
    keyed = a.set_index(["run_id", "topic_id", "sentence_index", "doc_id"])
    level = np.array(
        [
            STATUS_LEVEL[s]
            for s in keyed.loc[list(zip(rows.run_id, rows.topic_id, rows.sentence_index, rows.doc_id)), "status"]
        ]
    )
    sent = float(a.llm_answer.notna().sum() / max(1, a.f_norm_score.notna().sum()))
    return rows, level, sent, a


def assumed_errors(values: list[str], error: float) -> list:
    """The ``--answer-error`` values for a stand-in erring at ``error``, each once ('default' and 'true'
    coincide when the stand-in errs at the workflow's default), then ``estimate`` if asked for."""
    numbers = {AttestSettings().answer_error if v == "default" else error if v == "true" else v for v in values}
    return sorted(float(v) for v in numbers if v != "estimate") + ["estimate"] * ("estimate" in values)


def estimated(ctx, sent: np.ndarray, draws: list[np.ndarray], question: str) -> tuple[float, str]:
    """``attest.answer_error: estimate`` on unseen topics: per draw the error rate estimated from the
    ``sent`` citations' SIMULATED answers against the cross-validated model's probabilities
    (judges.attest.answers.estimate_error, as the session does), the weights updated with it; the mean
    leaderboard run tau and the estimates (mean, mean 90% interval, answers)."""
    import plan_curves

    taus, found = [], []
    for answers in draws:
        idx = np.flatnonzero(sent)
        p_full = np.minimum(ctx.p_full[idx], ctx.p_any[idx])
        levels = np.stack([1 - ctx.p_any[idx], ctx.p_any[idx] - p_full, p_full], axis=1).tolist()
        e = estimate_error(levels, [(str(answers[i]), None) for i in idx], AttestSettings().assumed_error)
        found.append(e)
        w = ctx.weights.copy()
        for i in idx:
            w[i] = plan_curves.weight_after(ctx, i, answers[i], question, e.value)
        taus.append(support_agreement.leaderboard_tau(ctx.table, w, ctx.truth))
    said = (
        f"{np.mean([e.value for e in found]):.3f} [{np.mean([e.low for e in found]):.3f}-"
        f"{np.mean([e.high for e in found]):.3f}], n {found[0].answers}"
    )
    return float(np.mean(taus)), said


def unseen(args) -> None:
    """Leaderboard run tau on topics the support model never saw: bench/plan_curves.py's setup (the
    support model refitted without each topic), the plan's citations answered by the SIMULATED LLM
    (wrong at random for a share ``error``, ``--unseen`` draws), weighed by the update assuming each
    ``--answer-error``."""
    import plan_curves

    ctx = plan_curves.setup(args.data)
    rng = np.random.default_rng(0)
    base = support_agreement.leaderboard_tau(ctx.table, ctx.weights, ctx.truth)
    print("SIMULATED LLM on unseen topics (support model cross-validated by topic; answers wrong at random)")
    print(f"no LLM: leaderboard run tau {base:.3f}; cells: mean over {args.unseen} draws")
    print("| question | error | answer_error | " + " | ".join(f"budget {b}" for b in args.budgets) + " |")
    print("|---|---:|---:|" + "---:|" * len(args.budgets))
    masks = {b: plan_curves.plan_mask(ctx, b) if b < 1 else np.ones(len(ctx.y), dtype=bool) for b in args.budgets}
    for question in args.questions:
        for error in args.errors:
            draws = plan_curves.answer_draws(ctx, question, error, args.unseen, rng)
            for assumed in assumed_errors(args.answer_error, error):
                if assumed == "estimate":
                    cells = [
                        "{:.3f} (estimate {})".format(*estimated(ctx, masks[b], draws, question)) for b in args.budgets
                    ]
                else:
                    cells = [
                        f"{plan_curves.llm_tau(ctx, masks[b], draws, question, assumed):.3f}" for b in args.budgets
                    ]
                print(f"| {question} | {error} | {assumed} | " + " | ".join(cells) + " |", flush=True)
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--errors", type=float, nargs="+", default=[0.0, 0.1, 0.2])
    ap.add_argument("--budgets", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.5, 1.0])
    ap.add_argument("--questions", nargs="+", default=["yes_no", "support_level"], help="attest.question values")
    ap.add_argument(
        "--plan-order", nargs="+", default=["on", "off"], choices=["on", "off"], help="attest.plan_order values"
    )
    ap.add_argument(
        "--answer-error",
        nargs="+",
        default=["default"],
        help="attest.answer_error values: 'default' (the workflow's), 'true' (the stand-in's error rate), numbers, "
        "or 'estimate' (from the session's answers; the estimate printed in the answer_error column)",
    )
    ap.add_argument(
        "--unseen",
        type=int,
        default=0,
        metavar="DRAWS",
        help="also score each stand-in error and answer_error on unseen topics (bench/plan_curves.py's "
        "cross-validated support model, the plan at each budget), mean of DRAWS random draws of the wrong answers",
    )
    args = ap.parse_args()
    for value in args.answer_error:
        if value not in ("default", "true", "estimate"):
            float(value)
    labels = read_labels(args.data / "rag24-support" / "labels.jsonl")
    truth = support_agreement.read_truth(args.data / "rag24-support" / "truth.eval.txt")
    if args.unseen:
        unseen(args)
    oracle = Oracle(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        judge(args.data, out, "none", {}, [])
        rows, level, _, _ = scored(out, "none", labels)
        base = support_agreement.score(rows, level, truth, weights=rows.weight.to_numpy())
        hard = support_agreement.leaderboard_tau(rows, level / 2.0, truth)
        judge(args.data, out, "align", {"support": {"judge": "alignment"}}, [])
        a_rows, a_level, _, _ = scored(out, "align", labels)
        print("SIMULATED LLM (answers from the NIST labels with a chosen error rate; not a real model)")
        print("Run taus from the judge's weights (the default `leaderboard.weights: expected`); with status weights")
        print("(`leaderboard.weights: status`, every citation its status's weight) in the column so named.")
        print(
            f"no LLM (support model): leaderboard run tau {base['lb_tau']:.3f} (status weights {hard:.3f})  "
            f"labelled-reports run tau {base['run_tau']:.3f}  "
            f"exact {base['exact']:.3f}  kappa {base['kappa']:.3f}"
        )
        print(
            "| question | plan order | error | answer_error | budget | sent (asked / budget x judgeable) "
            "| leaderboard run tau | the same, status weights | labelled-reports run tau | topic tau | exact | kappa |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for error in args.errors:
            server = serve(oracle, error)
            cfg = out / f"llm-{error}.yml"
            cfg.write_text(
                json.dumps(
                    {
                        "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1",
                        "OPENAI_MODEL": f"simulated-error-{error}",
                        "OPENAI_API_KEY": "sim",
                    }
                )
            )
            assumed = assumed_errors(args.answer_error, error)
            try:
                for question, answer_error, budget in (
                    (q, e, b) for q in args.questions for e in assumed for b in args.budgets
                ):
                    for lev in args.plan_order if budget < 1 else ["-"]:
                        name = f"{question}-e{error}-a{answer_error}-b{budget}-{lev}"
                        attest = (
                            {"mode": "all"}
                            if budget >= 1
                            else {"mode": "uncertain", "budget": budget, "plan_order": lev == "on"}
                        )
                        attest |= {
                            "logprobs": False,
                            "concurrency": 8,
                            "question": question,
                            "answer_error": answer_error,
                        }
                        judge(args.data, out, name, {"attest": attest}, ["--llm-config", str(cfg)])
                        rows, level, sent, a = scored(out, name, labels)
                        shown = answer_error
                        if answer_error == "estimate":  # what the session estimated (its config.yml)
                            e = yaml.safe_load((out / f"{name}.config.yml").read_text())["attest"]["answer_error"]
                            shown = f"estimate {e['estimate']:.3f} [{e['low']:.3f}-{e['high']:.3f}], n {e['answers']}"
                        judgeable = int((a.status != "missing").sum())
                        asked = f"{int(a.llm_answer.notna().sum())} / {budget * judgeable:.1f}"
                        s = support_agreement.score(rows, level, truth, weights=rows.weight.to_numpy())
                        hard = support_agreement.leaderboard_tau(rows, level / 2.0, truth)
                        print(
                            f"| {question} | {lev} | {error} | {shown} | {'all' if budget >= 1 else budget} "
                            f"| {sent:.1%} "
                            f"({asked}) "
                            f"| {s['lb_tau']:.3f} | {hard:.3f} | {s['run_tau']:.3f} | {s['topic_tau']:.3f} "
                            f"| {s['exact']:.3f} | {s['kappa']:.3f} |",
                            flush=True,
                        )
                # the grade table before the support model, asked about every citation, same answers
                old = []
                for (r, t, i, d), status in zip(
                    zip(a_rows.run_id, a_rows.topic_id, a_rows.sentence_index, a_rows.doc_id), a_level
                ):
                    label = "supported" if a_rows.y.iloc[len(old)] == 2 else "other"
                    yes = label == "supported"
                    if flipped(error, f"{r}\x00{t}\x00{i}\x00{d}"):
                        yes = not yes
                    old.append(
                        OLD_TABLE[
                            ({2: "supported", 1: "partial", 0: "unsupported"}[int(status)], "YES" if yes else "NO")
                        ]
                    )
                s = support_agreement.score(a_rows, np.array(old), truth)
                print(
                    f"| yes_no | - | {error} | - | all, grade table before the model (alignment ±1 level) | 100% | "
                    f"{s['lb_tau']:.3f} | {s['lb_tau']:.3f} | {s['run_tau']:.3f} | {s['topic_tau']:.3f} "
                    f"| {s['exact']:.3f} "
                    f"| {s['kappa']:.3f} |"
                )
            finally:
                server.shutdown()


if __name__ == "__main__":
    main()
