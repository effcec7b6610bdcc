"""Is the LLM checked before it is used? The check sample against SIMULATED LLMs on rag24-support.

The stand-in is no model: it answers the attestation question from the NIST labels of
``rag24-support`` with a chosen share of wrong answers (``bench/attest_simulated.py``'s oracle;
``--errors 0.5`` answers YES / NO independently of the labels: at random). For each error rate it
runs the real CLI (``--attest uncertain``, the workflow's default budget) online against the
stand-in on loopback, and, for each rate in ``--batch-errors``, the batch round trip too (judge
without the LLM, ``attest export``, the stand-in answering the request files as ``vllm run_batch``
would, ``attest import``, judge again). It prints the leaderboard run tau against NIST beside the
judge without an LLM, the check's figures (sensitivity, specificity, Cohen's kappa and its 95%
interval on the check sample, ``judges.attest.check``), whether the answers were used and the
statuses they changed. Usage::

    python bench/llm_check.py [--data ../shared/data] [--errors 0.5 0.2] [--batch-errors 0.5]

SIMULATED: the figures say what the judge does with answers of that quality, not what a real LLM
would reach.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from judges.formats.labels import read_labels  # noqa: E402

import attest_simulated  # noqa: E402
import standin_batch  # noqa: E402
import support_agreement  # noqa: E402
from standin_batch import Oracle, reply  # noqa: E402

ATTEST = {"mode": "uncertain", "logprobs": False, "concurrency": 8}


def tau(out: Path, name: str, labels, truth) -> float:
    rows, level, _, _ = attest_simulated.scored(out, name, labels)
    return support_agreement.score(rows, level, truth, weights=rows.weight.to_numpy())["lb_tau"]


def figures(out: Path, name: str) -> dict:
    return yaml.safe_load((out / f"{name}.config.yml").read_text())["attest"]


def row(path: str, error: float, t: float, base: float, a: dict) -> str:
    c = a["check"]
    kappa = f"{c['kappa']:.3f} [{c['kappa_low']:.3f}, {c['kappa_high']:.3f}]" if "kappa" in c else "-"
    sens = f"{c['sensitivity']:.2f} / {c['specificity']:.2f}" if "kappa" in c else "-"
    d = a.get("degenerate") or {}
    used = "yes" if not d or d.get("used") else f"no ({d['reason']})"
    changed = a["changed"] if not d or d.get("used") else f"0 ({d.get('changed_unused', 0)} unused)"
    drawn = c["drawn"]
    return (
        f"| {path} | {error} | {drawn['supported']} + {drawn['not_supported']} | {sens} | {kappa} | {c['verdict']} "
        f"| {used} | {changed} | {t:.3f} | {t - base:+.3f} |"
    )


def online(data: Path, out: Path, oracle: Oracle, error: float, labels, truth, base: float) -> str:
    server = standin_batch.serve(lambda body: reply(oracle, body["messages"], error))
    cfg = out / f"llm-{error}.yml"
    cfg.write_text(json.dumps({"OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1",
                               "OPENAI_MODEL": f"simulated-error-{error}"}))  # fmt: skip
    name = f"online-e{error}"
    try:
        attest_simulated.judge(data, out, name, {"attest": ATTEST}, ["--llm-config", str(cfg), "--cache-dir",
                                                                     str(out / f"cache-{error}")])  # fmt: skip
    finally:
        server.shutdown()
    return row("online", error, tau(out, name, labels, truth), base, figures(out, name))


def batch(data: Path, out: Path, oracle: Oracle, error: float, labels, truth, base: float) -> str:
    """Judge without the LLM, export, answer the files as the stand-in, import, judge again."""
    name = f"batch-e{error}"
    cache = out / f"batch-cache-{error}"
    cfg = out / f"batch-{error}.yml"  # the endpoint the last judge names; every answer is in the cache by then
    cfg.write_text(json.dumps({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": f"sim-batch-{error}"}))
    attest_simulated.judge(data, out, name, {"attest": {**ATTEST, "mode": "none"}}, [])  # export reads its workflow
    support_agreement.cli("attest", "export", str(out), "--name", name, "--attest", "uncertain",
                          "--llm-config", str(cfg), "--cache-dir", str(cache))  # fmt: skip
    files = []
    content_of = lambda body: reply(oracle, body["messages"], error)  # noqa: E731
    for requests in sorted((out / f"{name}.batch").glob("requests-*.jsonl")):
        target = out / requests.name.replace("requests", f"answers-{error}")
        standin_batch.answer_file(requests, target, content_of)
        files.append(str(target))
    support_agreement.cli("attest", "import", str(out), "--name", name, "--cache-dir", str(cache), *files)
    attest_simulated.judge(data, out, name, {"attest": ATTEST}, ["--llm-config", str(cfg), "--cache-dir", str(cache)])
    a = figures(out, name)
    assert a["calls"] == 0, "every answer came from the cache"
    return row("batch", error, tau(out, name, labels, truth), base, a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--errors", type=float, nargs="+", default=[0.5, 0.2])
    ap.add_argument("--batch-errors", type=float, nargs="*", default=[0.5])
    args = ap.parse_args()
    labels = read_labels(args.data / "rag24-support" / "labels.jsonl")
    truth = support_agreement.read_truth(args.data / "rag24-support" / "truth.eval.txt")
    oracle = Oracle(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        attest_simulated.judge(args.data, out, "none", {}, [])
        base = tau(out, "none", labels, truth)
        print("SIMULATED LLM (answers from the NIST labels with a chosen error rate; 0.5: at random)")
        print(f"no LLM (support model): leaderboard run tau {base:.3f}")
        print(
            "| path | stand-in error | check pairs (sure supported + sure not) | sensitivity / specificity "
            "| kappa [95% interval] | check | answers used | statuses changed | run tau | vs no LLM |"
        )
        print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|")
        for error in args.errors:
            print(online(args.data, out, oracle, error, labels, truth, base), flush=True)
        for error in args.batch_errors:
            print(batch(args.data, out, oracle, error, labels, truth, base), flush=True)


if __name__ == "__main__":
    main()
