"""Topics dealt to processes (``--workers N``, topic shards) so that each judges about as much.

A process judges whole topics. Its work is close to proportional to the citations it judges
(about 0.2 ms each whatever the document's length, plus a little per report: bench/run.py), and
the runs' first pass counts both per topic before any process judges. The topics are dealt
largest first, each to the process with the least work so far (the longest-processing-time
rule: the largest share is at most 4/3 of the best possible). Ties go to the process with fewer
topics, then the lower one, and between topics to the lower topic id, so every shard of a session,
on any machine, deals the same groups from the same inputs.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import Iterable, Mapping

REPORT_WORK = 1  # a report's work apart from its citations, in citations


def topic_work(report_citations: Mapping[tuple[str, str], int]) -> Counter:
    """Each topic's work: its reports' citations, and :data:`REPORT_WORK` per report."""
    work: Counter = Counter()
    for (_, topic), citations in report_citations.items():
        work[topic] += citations + REPORT_WORK
    return work


def deal(topics: Iterable[str], work: Mapping[str, int], n: int) -> list[frozenset[str]]:
    """``topics`` in ``n`` groups of about equal total ``work`` (module doc); group ``i`` is the
    ``i``-th process's (a group may be empty when there are fewer topics than processes)."""
    groups: list[list[str]] = [[] for _ in range(n)]
    least = [(0, 0, i) for i in range(n)]  # (work so far, topics so far, group): a heap
    for topic in sorted(topics, key=lambda t: (-work.get(t, 0), t)):
        load, count, i = heapq.heappop(least)
        groups[i].append(topic)
        heapq.heappush(least, (load + work.get(topic, 0), count + 1, i))
    return [frozenset(g) for g in groups]
