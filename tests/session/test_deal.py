"""Topics dealt to processes by their work (judges.session.deal): a partition, the same whatever the
order given, and as even as list scheduling promises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judges.session.deal import REPORT_WORK, deal, topic_work

works = st.dictionaries(st.text(min_size=1, max_size=6), st.integers(0, 5000), max_size=60)


@given(works, st.integers(1, 9))
def test_deal_is_a_balanced_partition(work, n):
    groups = deal(list(work), work, n)
    assert len(groups) == n
    assert sorted(t for g in groups for t in g) == sorted(work)  # every topic once
    assert deal(reversed(list(work)), dict(reversed(work.items())), n) == groups  # not the given order
    loads = [sum(work[t] for t in g) for g in groups]
    if work:
        # list scheduling: the largest share exceeds the mean by less than the largest topic
        assert max(loads) <= sum(loads) / n + max(work.values())
    if len(work) >= n:
        assert all(groups)  # topics without work are spread too: no process left idle


def test_deal_evens_out_what_round_robin_does_not():
    work = {"t1": 90, "t2": 10, "t3": 80, "t4": 20}  # round-robin in topic order: 170 against 30
    assert deal(work, work, 2) == [frozenset({"t1", "t2"}), frozenset({"t3", "t4"})]
    assert deal(["a", "b", "c"], {}, 2) == [frozenset({"a", "c"}), frozenset({"b"})]  # no work: by count


def test_topic_work_counts_citations_and_reports():
    work = topic_work({("run-a", "t1"): 5, ("run-b", "t1"): 0, ("run-a", "t2"): 3})
    assert work == {"t1": 5 + 2 * REPORT_WORK, "t2": 3 + REPORT_WORK}
