"""The report's side-by-side pages of a set judged with ``--judge battle``: ``battles/index.html``
(the Bradley-Terry ranking with its intervals, the topics) and per topic ``battles/tJ.html``, every
battle with its two answers in the order shown (linked to their answer pages), the verdict, its
probabilities, its source (judge, llm, human) and its reasons."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterator

from judges.formats import outputset
from judges.report import render

SAYS = {"A": "first better", "B": "second better"}  # with the first shown A; tie: tie


def has_battles(out_dir: Path, name: str) -> bool:
    return outputset.path(out_dir, name, "battles_jsonl").is_file()


def battle_pages(site, out_dir: Path, name: str) -> Iterator[tuple[str, str]]:
    """The battle pages (path under the report's directory, text); none without ``NAME.battles.jsonl``."""
    if not has_battles(out_dir, name):
        return
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for line in outputset.path(out_dir, name, "battles_jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_topic[record["topic_id"]].append(record)
    ranking_path = outputset.path(out_dir, name, "battle_ranking")
    ranking = []
    if ranking_path.is_file():
        ranking = [row.split("\t") for row in ranking_path.read_text(encoding="utf-8").splitlines()[1:]]
    run_index = {r: i for i, r in enumerate(site.runs)}
    topic_index = {t: j for j, t in enumerate(site.topics)}
    answered = {(p.run, p.topic) for p in site.answers}

    def link(run: str, topic: str) -> dict:
        i, j = run_index.get(run), topic_index.get(topic)
        href = f"../runs/r{i}/t{j}.html" if i is not None and j is not None and (run, topic) in answered else None
        return {"run": run, "href": href}

    topics: list[tuple[str, str, int]] = []
    for topic in sorted(by_topic):
        j = topic_index.get(topic, len(topic_index) + len(topics))
        rows = []
        for r in by_topic[topic]:
            first, second = r["shown"]
            a_first = first == r["run_a"]
            p_first, p_second = (r["p_a"], r["p_b"]) if a_first else (r["p_b"], r["p_a"])
            verdict = r["verdict"] if a_first else {"A": "B", "B": "A", "tie": "tie"}[r["verdict"]]
            rows.append(
                {
                    "first": link(first, topic),
                    "second": link(second, topic),
                    "says": SAYS.get(verdict, "tie"),
                    "p": (p_first, r["p_tie"], p_second),
                    "source": r["source"],
                    "why": r["explanation"],
                }
            )
        topics.append((f"t{j}.html", topic, len(rows)))
        yield (
            f"battles/t{j}.html",
            render.page("battles_topic.html", 1, f"battles, topic {topic}", topic=topic, rows=rows),
        )
    yield "battles/index.html", render.page("battles.html", 1, "battles", name=name, ranking=ranking, topics=topics)
