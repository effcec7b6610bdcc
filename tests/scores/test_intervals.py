"""How far to trust the leaderboard (judges.scores.intervals): the variance formulas against enumeration
and simulation, the fit of the spreads, the intervals' properties, the files, their readers, the
summary line, labels narrowing an interval, and the spreads the shipped model records."""

import itertools
import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from helpers import cli_in_process, BUNDLED, ROOT, judge_cli, run_cli
from hypothesis import given
from hypothesis import strategies as st

import judges
from judges.scores import intervals as iv
from judges.attest.answers import likelihood
from judges.core.measures import NO_GROUNDING, SentenceResult, evaluate
from judges.attest.plan import PLAN_MIX
from judges.core.vocabulary import WEIGHT
from judges.core.records import Judgment
from judges.core.vocabulary import STATUS_GRADE
from judges.support.model import load_model
from judges.engine.weights import citation_weight
from judges.session.writer import assessment_order

LEVEL_WEIGHT = (0.0, 0.5, 1.0)
SAMPLE = [*BUNDLED, "--workflow", ROOT / "workflows" / "citation.yml"]


# -- per citation ------------------------------------------------------------------------------------
probabilities = st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)).map(lambda p: (max(p), min(p)))


@given(probabilities, st.booleans())
def test_weight_variance_is_the_variance_over_the_three_levels(p, ruled):
    p_any, p_full = p
    q = iv.level_distribution([p_any], [p_full])
    weights = (0.0, 0.5, 0.5 if ruled else 1.0)
    mean = sum(qk * w for qk, w in zip(q[0], weights))
    brute = sum(qk * (w - mean) ** 2 for qk, w in zip(q[0], weights))
    assert iv.weight_variances(q, [ruled])[0] == pytest.approx(brute, abs=1e-12)


@given(
    st.tuples(st.floats(0.001, 0.999), st.floats(0.001, 0.999)).map(lambda p: (max(p), min(p) * 0.999)),
    st.floats(0.0, 0.5),
    st.sampled_from(["YES", "NO", "FULL", "PARTIAL", "NONE"]),
    st.booleans(),
)
def test_an_answered_citation_has_the_posterior_whose_mean_is_its_weight(p, error, answer, ruled):
    p_any, p_full = p
    lik = likelihood(answer, None, error)
    q = iv.level_distribution([p_any], [p_full], [lik])[0]
    status = "partial" if ruled else "supported"
    j = Judgment(status, STATUS_GRADE[status], 0, 0.0, 0.0, 0.0, 1, 0, 0, "", "embedded", "", "supported")
    j = j._replace(p_any=p_any, p_full=p_full, llm_answer=answer, capped=ruled)
    full_w = 0.5 if ruled else 1.0
    assert 0.5 * q[1] + full_w * q[2] == pytest.approx(citation_weight(j, True, error, full_ruled_out=ruled))
    prior = np.array([1 - p_any, p_any - p_full, p_full]) * lik
    assert q == pytest.approx(prior / prior.sum())


def test_missing_unknown_and_labelled_citations():
    q = iv.level_distribution(
        [0.9, 0.0, 0.0, 0.7, 0.0],
        [0.8, 0.0, 0.0, 0.1, 0.0],
        [[1, 1, 1], [1, 1, 1], [0.1, 0.1, 0.9], [1, 1, 1], [1, 1, 1]],
        has_probabilities=[True, False, False, True, False],
        missing=[False, True, False, False, False],
        label_level=[-1, -1, -1, 2, -1],
    )
    v = iv.weight_variances(q, [False] * 5)
    assert v[0] == pytest.approx(0.8 + 0.25 * 0.1 - (0.8 + 0.05) ** 2)  # E[w^2] - E[w]^2
    assert v[1] == 0.0  # missing: weighs 0, known
    assert q[2] == pytest.approx(np.array([1, 1, 9]) / 11)  # unknown, answered: uniform prior, then Bayes
    assert v[3] == 0.0 and q[3] == pytest.approx([0, 0, 1])  # labelled
    assert v[4] == pytest.approx(0.25)  # unknown (cross-language): none or full, 1/2 each


# -- per report: every support measure against enumeration of the people's levels -------------------
def assessments(rows):
    """A minimal assessments table: the columns judges.scores.intervals reads."""
    cols = dict(
        zip(
            (
                "run_id",
                "topic_id",
                "sentence_index",
                "citation_rank",
                "status",
                "weight",
                "p_any",
                "p_full",
                "llm_answer",
                "llm_p_yes",
                "numbers_missing",
                "entities_missing",
                "human_label",
                "sentence",
            ),
            zip(*rows),
        )
    )
    types = {"sentence_index": pa.int32(), "citation_rank": pa.int32(), "numbers_missing": pa.list_(pa.string())}
    types["entities_missing"] = pa.list_(pa.string())
    return pa.table({k: pa.array(list(v), type=types.get(k)) for k, v in cols.items()})


SENTENCES = {0: "Alpha beta gamma delta.", 1: "Tidal power.", 2: "Nothing cited here at all.", 3: "  "}
# (sentence, status, p_any, p_full, numbers_missing, human_label)
CITATIONS = [
    (0, "supported", 0.9, 0.7, [], None),
    (0, "partial", 0.6, 0.5, ["12"], None),  # the cap rules full out
    (1, "unsupported", 0.4, 0.1, [], None),
    (1, "missing", None, None, [], None),
    (3, "supported", 0.8, 0.6, [], None),  # a blank sentence: counted by citation measures only
    (0, "supported", 0.5, 0.3, [], "supported"),  # labelled: known
]


def measures_of(statuses, weights):
    """The report's measures for one status and weight per citation of CITATIONS."""
    by_sentence = {}
    for (s, *_), status, w in zip(CITATIONS, statuses, weights):
        by_sentence.setdefault(s, []).append((status, w))
    results = [
        SentenceResult(
            len(text.strip()),
            tuple(st for st, _ in by_sentence.get(s, [])),
            NO_GROUNDING,
            tuple(w for _, w in by_sentence.get(s, [])),
        )
        for s, text in SENTENCES.items()
    ]
    return evaluate(results)


def human_measures(levels):
    """The people's measures of the report for one assignment of levels to its citations."""
    statuses = ["supported" if lv == 2 else "partial" if lv == 1 else "unsupported" for lv in levels]
    return measures_of(statuses, [LEVEL_WEIGHT[lv] for lv in levels])


def units(statuses, weights):
    """Each support measure of the report as a sum of independent units, ``[(coefficient, value)]``
    (citations, non-blank sentences or the report), for one status and weight per citation."""
    nonblank = {s: len(t.strip()) for s, t in SENTENCES.items() if t.strip()}
    n, chars = len(CITATIONS), sum(nonblank.values())
    cited = {s: [(st, w) for (s2, *_), st, w in zip(CITATIONS, statuses, weights) if s2 == s] for s in nonblank}
    some = {s: float(any(st == "supported" for st, _ in c)) for s, c in cited.items()}
    return {
        "WEIGHTED_PRECISION": [(1 / n, w) for w in weights],
        "CITATION_SUPPORT": [(1 / n, float(st == "supported")) for st in statuses],
        "PERFECT_CITATIONS": [(1.0, float(all(st == "supported" for st in statuses)))],
        "SENTENCE_SUPPORT": [(1 / len(nonblank), some[s]) for s in nonblank],
        "GROUNDEDNESS": [(nonblank[s] / chars, some[s]) for s in nonblank],
        "WEIGHTED_RECALL": [(1 / len(nonblank), max((w for _, w in c), default=0.0)) for s, c in cited.items()],
    }


@pytest.mark.parametrize("expected", [True, False], ids=["expected weights", "status weights"])
def test_report_errors_match_enumeration_of_the_levels(expected):
    """Per unit (citation, sentence, report) the expected squared error of the judge's value under
    the levels, summed with the unit's coefficient squared: enumerated over every assignment."""
    rows, weights = [], []
    for rank, (s, status, p_any, p_full, numbers, label) in enumerate(CITATIONS):
        w = WEIGHT[label or status]
        if expected and p_any is not None and label is None:  # judges.engine.weights: full weighs 0.5 where ruled out
            w = 0.5 * (p_any - p_full) + (0.5 if numbers else 1.0) * p_full
        rows.append(("r", "t", s, rank, status, w, p_any, p_full, None, None, numbers, [], label, SENTENCES[s]))
        weights.append(w)
    table = assessments(rows)
    statuses = [c[1] for c in CITATIONS]
    judged = measures_of(statuses, weights)
    judge_units = units(statuses, weights)
    for m, us in judge_units.items():  # the decomposition is the registry's measure
        assert sum(c * x for c, x in us) == pytest.approx(judged[m]), m
    order = assessment_order(table)  # the rows are not in sentence order
    u, var = iv.report_variances(table, order, {("r", "t"): judged}, ("numbers", "entities"), 0.1)[("r", "t")]
    # each citation's levels: the model's, full moved to partial where ruled out; fixed when known
    choices = []
    for _, _, p_any, p_full, numbers, label in CITATIONS:
        if label is not None:
            choices.append([(STATUS_GRADE[label], 1.0)])
        elif p_any is None:
            choices.append([(0, 1.0)])
        else:
            q = [1 - p_any, p_any - p_full, p_full]
            if numbers:
                q = [q[0], q[1] + q[2], 0.0]
            choices.append([(lv, q[lv]) for lv in range(3) if q[lv] > 0])
    error = dict.fromkeys(var, 0.0)
    variance = {m: [0.0, 0.0] for m in var}
    for combo in itertools.product(*choices):
        p = math.prod(c[1] for c in combo)
        levels = [c[0] for c in combo]
        people = units(
            ["supported" if lv == 2 else "partial" if lv == 1 else "unsupported" for lv in levels],
            [LEVEL_WEIGHT[lv] for lv in levels],
        )
        h = human_measures(levels)
        for m in var:
            error[m] += p * sum(c**2 * (x - j) ** 2 for (c, x), (_, j) in zip(people[m], judge_units[m]))
            variance[m][0] += p * h[m]
            variance[m][1] += p * h[m] ** 2
    for m in var:
        assert var[m] == pytest.approx(error[m], abs=1e-12), m
        # the people's value varies as much as the units' errors add up, less the judge's offsets
        assert variance[m][1] - variance[m][0] ** 2 <= var[m] + 1e-12, m
        if expected and m == "WEIGHTED_PRECISION":  # the judge's value is the expectation: its variance
            assert var[m] == pytest.approx(variance[m][1] - variance[m][0] ** 2, abs=1e-12)
    assert u == pytest.approx(4 / 6)  # the missing and the labelled citation are known


# -- per run: the formula against simulation ---------------------------------------------------------
def test_judge_variance_matches_a_simulation_of_the_three_errors():
    rng = np.random.default_rng(5)
    spreads = iv.Spreads(report_sd=0.15, run_sd=0.05)
    topics = 6
    reports = [rng.uniform(0.02, 0.2, size=n) for n in (1, 3, 7, 2, 5)]  # the sixth topic: no report
    certain = [np.arange(len(v)) < (1 if len(v) == 3 else 0) for v in reports]  # one labelled citation
    u = [float(np.mean(~c)) for c in certain]
    ind = [float(np.sum(np.where(c, 0.0, v)) / len(v) ** 2) for v, c in zip(reports, certain)]
    formula = iv.judge_variance(ind, u, topics, spreads)
    draws = 40_000
    run_effect = rng.normal(0, spreads.run_sd, draws)
    total = np.zeros(draws)
    for v, c in zip(reports, certain):
        report_effect = rng.normal(0, spreads.report_sd, draws)
        e = rng.normal(0, np.sqrt(v), size=(draws, len(v))) + (report_effect + run_effect)[:, None]
        total += np.where(c, 0.0, e).mean(axis=1)
    assert np.var(total / topics) == pytest.approx(formula, rel=0.03)
    assert iv.judge_variance(ind, u, topics, iv.INDEPENDENT) == pytest.approx(sum(ind) / topics**2)


# -- fitting the spreads -----------------------------------------------------------------------------
def simulated_residuals(report_sd, run_sd, bias, seed=0, runs=45, topics=14):
    rng = np.random.default_rng(seed)
    run_ids, topic_ids, human, weight, variance = [], [], [], [], []
    for r in range(runs):
        delta = rng.normal(0, run_sd)
        for t in range(topics):
            n = int(rng.integers(1, 10))
            eps = rng.normal(0, report_sd)
            v = rng.uniform(0.02, 0.2, n)
            w = rng.uniform(0.2, 0.8, n)
            run_ids += [f"r{r}"] * n
            topic_ids += [f"t{t}"] * n
            human += list(w + bias + delta + eps + rng.normal(0, np.sqrt(v)))
            weight += list(w)
            variance += list(v)
    return run_ids, topic_ids, np.array(human), np.array(weight), np.array(variance)


@pytest.mark.parametrize("truth", [(0.15, 0.06, 0.02), (0.0, 0.0, 0.0), (0.1, 0.0, -0.03)])
def test_fit_spreads_recovers_simulated_spreads(truth):
    fitted = iv.fit_spreads(*simulated_residuals(*truth))
    assert fitted["runs"] == 45 and fitted["reports"] == 45 * 14
    # on the variance scale: an sd near 0 is estimated as a few hundredths by chance
    assert fitted["report_sd"] ** 2 == pytest.approx(truth[0] ** 2, abs=0.004)
    assert fitted["run_sd"] ** 2 == pytest.approx(truth[1] ** 2, abs=0.004)
    assert fitted["bias"] == pytest.approx(truth[2], abs=0.025)


def test_fit_spreads_recovers_a_line_of_the_runs_mean_error():
    # the run effect's mean a line in the run's judged value (slope 0.3), about it an sd of 0.02
    rng = np.random.default_rng(5)
    run_ids, topic_ids, human, weight, variance = [], [], [], [], []
    for r in range(60):
        level = rng.uniform(0.2, 0.9)
        effect = 0.3 * (level - 0.55) + rng.normal(0, 0.02)
        for t in range(14):
            n = int(rng.integers(2, 8))
            w = np.clip(level + rng.normal(0, 0.1, n), 0.0, 1.0)
            v = np.full(n, 0.05)
            run_ids += [f"r{r}"] * n
            topic_ids += [f"t{t}"] * n
            human += list(w + effect + rng.normal(0, 0.1) + rng.normal(0, np.sqrt(v)))
            weight += list(w)
            variance += list(v)
    plain = iv.fit_spreads(run_ids, topic_ids, np.array(human), np.array(weight), np.array(variance))
    fitted = iv.fit_spreads(run_ids, topic_ids, np.array(human), np.array(weight), np.array(variance), line=True)
    assert "slope" not in plain and abs(fitted["slope"] - 0.3) < 2.5 * fitted["slope_sd"] < 0.2
    assert fitted["run_sd"] < plain["run_sd"]  # the line takes up what a constant run spread had to
    spreads = iv.Spreads.of(fitted)
    assert spreads.line(fitted["center"]) == (fitted["bias"], fitted["bias_sd"] ** 2)
    assert spreads.line(0.9)[0] > spreads.line(0.3)[0] and iv.Spreads.of(plain).line(0.3) == (0.0, 0.0)


def test_restricted_likelihood_matches_the_dense_normal():
    rng = np.random.default_rng(2)
    run_index = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2])
    d, s = rng.normal(0, 0.2, 9), rng.uniform(0.01, 0.05, 9)

    def dense(report_sd, run_sd):
        cov = np.diag(s + report_sd**2) + run_sd**2 * (run_index[:, None] == run_index[None, :])
        inv = np.linalg.inv(cov)
        one = np.ones(9)
        mu = (one @ inv @ d) / (one @ inv @ one)
        r = d - mu
        return -0.5 * (np.linalg.slogdet(cov)[1] + r @ inv @ r + np.log(one @ inv @ one)), mu

    grid = np.array([0.0, 0.1, 0.3])
    loglik, bias = iv.restricted_likelihood(run_index, d, s, grid, grid)
    for i, j in itertools.product(range(3), range(3)):
        ll, mu = dense(grid[i], grid[j])
        assert loglik[i, j] == pytest.approx(ll) and bias[i, j] == pytest.approx(mu)
    # with a line in a run-level covariate: generalised least squares on [1, x]
    x = np.array([0.2, 0.5, 0.9])
    loglik, coef, info = iv.restricted_likelihood(run_index, d, s, grid, grid, x)
    design = np.stack([np.ones(9), x[run_index]], axis=1)
    for i, j in itertools.product(range(3), range(3)):
        cov = np.diag(s + grid[i] ** 2) + grid[j] ** 2 * (run_index[:, None] == run_index[None, :])
        inv = np.linalg.inv(cov)
        m = design.T @ inv @ design
        beta = np.linalg.solve(m, design.T @ inv @ d)
        r = d - design @ beta
        ll = -0.5 * (np.linalg.slogdet(cov)[1] + r @ inv @ r + np.linalg.slogdet(m)[1])
        assert loglik[i, j] == pytest.approx(ll) and coef[i, j] == pytest.approx(beta)
        assert info[i, j] == pytest.approx([m[0, 0], m[0, 1], m[1, 1]])
    # a heteroscedastic run term: run r's effect of variance run_sd^2 x scale[r]
    scale = np.array([0.5, 1.0, 3.0])
    loglik, bias = iv.restricted_likelihood(run_index, d, s, grid, grid, run_scale=scale)
    for i, j in itertools.product(range(3), range(3)):
        cov = np.diag(s + grid[i] ** 2) + grid[j] ** 2 * scale[run_index] * (run_index[:, None] == run_index[None, :])
        inv = np.linalg.inv(cov)
        one = np.ones(9)
        mu = (one @ inv @ d) / (one @ inv @ one)
        r = d - mu
        ll = -0.5 * (np.linalg.slogdet(cov)[1] + r @ inv @ r + np.log(one @ inv @ one))
        assert loglik[i, j] == pytest.approx(ll) and bias[i, j] == pytest.approx(mu)


def test_fit_run_scale_finds_a_run_term_that_grows_with_the_runs_value():
    # the run effect's sd 0.01 for runs the judge rates low, up to 0.13 for high ones
    rng = np.random.default_rng(9)
    run_ids, topic_ids, human, weight, variance = [], [], [], [], []
    for r in range(60):
        level = rng.uniform(0.1, 0.9)
        effect = rng.normal(0, 0.01 + 0.15 * (level - 0.1))
        for t in range(10):
            n = int(rng.integers(2, 6))
            w = np.clip(level + rng.normal(0, 0.05, n), 0.0, 1.0)
            run_ids += [f"r{r}"] * n
            topic_ids += [f"t{t}"] * n
            human += list(w + effect + rng.normal(0, 0.05, n))
            weight += list(w)
            variance += [0.0025] * n
    args = (run_ids, topic_ids, np.array(human), np.array(weight), np.array(variance))
    fitted = iv.fit_run_scale(*args, covariate="value", step=0.01)
    assert fitted["gamma"] >= 1.0 and fitted["gain"] > 1.92
    assert fitted["z_center"] == pytest.approx(np.mean(iv.run_values(run_ids, topic_ids, weight)))
    low, high = iv.run_scale(fitted, [0.15, 0.85])
    assert low < 1.0 < high
    # at gamma 0 the fit is fit_spreads'
    plain = iv.fit_spreads(*args, step=0.01)
    assert iv.fit_spreads(*args, step=0.01, run_scale=np.ones(60)) == plain


# -- intervals and pairs -----------------------------------------------------------------------------
@given(st.floats(0.0, 1.0), st.floats(0.0, 0.5), st.floats(0.0, 0.5))
def test_an_interval_holds_its_value_and_widens_with_the_variance(value, a, b):
    small, large = sorted((a, b))
    lo, hi = iv.interval(value, small)
    lo2, hi2 = iv.interval(value, large)
    assert 0.0 <= lo2 <= lo <= value <= hi <= hi2 <= 1.0
    assert iv.interval(value, 0.0) == (value, value)
    assert iv.interval(value, large, 0.0, math.inf)[1] >= hi2


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(1e-6, 0.5), st.floats(1e-6, 0.5))
def test_p_same_order_grows_with_the_gap_and_shrinks_with_the_variance(g1, g2, v1, v2):
    assert 0.5 <= iv.p_same_order(min(g1, g2), v1) <= iv.p_same_order(max(g1, g2), v1) <= 1.0
    if g1 > 0:
        assert iv.p_same_order(g1, min(v1, v2)) >= iv.p_same_order(g1, max(v1, v2))
    assert iv.p_same_order(0.0, v1) == 0.5 and iv.p_same_order(0.1, 0.0) == 1.0


def test_trust_pairs_and_topic_sampling():
    per_topic = {("a", "t1"): {"WEIGHTED_PRECISION": 0.6}, ("a", "t2"): {"WEIGHTED_PRECISION": 0.4}}
    per_topic |= {("b", "t1"): {"WEIGHTED_PRECISION": 0.3}}  # b did not answer t2: it counts 0
    reports = {k: (1.0, {"WEIGHTED_PRECISION": 0.01}) for k in per_topic}
    spreads = iv.Spreads(0.1, 0.05, 0.0, 0.04)
    found = iv.trust(per_topic, ["b", "a"], ["t2", "t1"], reports, spreads, ["WEIGHTED_PRECISION"])
    (_, _, va, lo, hi, lot, hit, t, *rest_a), (_, _, vb, *_) = found.intervals
    assert (va, vb, t) == (pytest.approx(0.5), pytest.approx(0.15), 2)
    assert rest_a[:4] == [pytest.approx(0.5), "model", 0, 0.0]  # no labels: the estimate is the value
    named = iv.trust(per_topic, ["a", "b"], ["t1", "t2"], reports, spreads._replace(source="X"), ["WEIGHTED_PRECISION"])
    assert named.intervals[0][9] == "model (errors learned on X)"
    # independent, report, run and regime parts over T^2
    var_a = (0.02 + 0.1**2 * 2 + 0.05**2 * 4 + 0.04**2 * 4) / 4
    assert (lo, hi) == pytest.approx((0.5 - 1.959964 * math.sqrt(var_a), 0.5 + 1.959964 * math.sqrt(var_a)))
    topic_var = np.var([0.6, 0.4], ddof=1) / 2
    assert (lot, hit) == pytest.approx(
        (0.5 - 1.959964 * math.sqrt(var_a + topic_var), 0.5 + 1.959964 * math.sqrt(var_a + topic_var))
    )
    var_b = (0.01 + 0.1**2 + 0.05**2 + 0.04**2) / 4
    # a bias shared by every run moves the pair by the runs' different shares of judged citations only
    regime_a, regime_b, regime_pair = 0.04**2 * 4 / 4, 0.04**2 / 4, 0.04**2 * (2 / 2 - 1 / 2) ** 2
    pair_var = var_a + var_b - regime_a - regime_b + regime_pair
    [(first, second, measure, gap, p, p_topics)] = found.pairs
    assert (first, second, measure, gap) == ("a", "b", "WEIGHTED_PRECISION", pytest.approx(0.35))
    assert p == pytest.approx(0.5 * math.erfc(-0.35 / math.sqrt(2 * pair_var)))
    paired = np.var([0.6 - 0.3, 0.4 - 0.0], ddof=1) / 2
    assert p_topics == pytest.approx(0.5 * math.erfc(-0.35 / math.sqrt(2 * (pair_var + paired))))


# -- the files ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample")
    return out, judge_cli("--judge", "citation", *SAMPLE, out=out, name="s")


def test_the_intervals_file_brackets_each_leaderboard_value(sample):
    out, _ = sample
    lines = (out / "s.intervals.tsv").read_text().splitlines()
    assert lines[0].split("\t") == list(iv.INTERVAL_COLUMNS)
    rows = [line.split("\t") for line in lines[1:]]
    board = {
        (r, m): v
        for r, t, m, v in (line.split("\t") for line in (out / "s.leaderboard.txt").read_text().splitlines())
        if t == "all"
    }
    assert [(r[0], r[1]) for r in rows] == list(board)  # the leaderboard's order: runs sorted, registry order
    for run, measure, value, low, high, low_t, high_t, topics, estimate, made, labels, effective, *alone in rows:
        assert value == board[(run, measure)] and topics == "3"
        # without labels: the model's interval around the leaderboard's value, nothing from labels
        made_as = "no judge error" if measure in iv.NO_JUDGE_ERROR else "model (errors learned on rag24-support)"
        assert (estimate, made, labels, effective, alone) == (value, made_as, "0", "0.0000", ["nan", "nan"])
        low, high, low_t, high_t, value = map(float, (low, high, low_t, high_t, value))
        assert low_t <= low <= value <= high <= high_t
        if measure in iv.NO_JUDGE_ERROR:
            assert low == value == high
        elif measure == "WEIGHTED_PRECISION":
            assert low < value < high
    pairs = [line.split("\t") for line in (out / "s.pairs.tsv").read_text().splitlines()]
    assert pairs[0] == list(iv.PAIR_COLUMNS) and len(pairs) == 1 + 3
    values = {r[0]: float(r[2]) for r in rows if r[1] == "WEIGHTED_PRECISION"}
    for a, b, measure, gap, p, p_topics in pairs[1:]:
        assert measure == "WEIGHTED_PRECISION" and values[a] >= values[b]
        assert float(gap) == pytest.approx(values[a] - values[b], abs=2e-4)
        assert 0.5 <= float(p) <= 1.0 and 0.5 <= float(p_topics) <= 1.0
    assert pairs[1:] == sorted(pairs[1:])


def test_the_readers_give_the_files_rows(sample):
    out, _ = sample
    frame = judges.read_intervals(out, "s")
    assert list(frame.columns) == list(iv.INTERVAL_COLUMNS)
    text = [line.split("\t") for line in (out / "s.intervals.tsv").read_text().splitlines()[1:]]
    expected = [
        [*map(str, r[:2]), *(f"{v:.4f}" for v in r[2:7]), str(r[7]), f"{r[8]:.4f}", r[9], str(r[10])]
        + [f"{v:.4f}" for v in r[11:]]
        for r in frame.values
    ]
    assert expected == text
    pairs = judges.read_pairs(out, "s")
    text = [line.split("\t") for line in (out / "s.pairs.tsv").read_text().splitlines()[1:]]
    assert [list(r[:3]) + [f"{v:.4f}" for v in r[3:]] for r in pairs.values] == text


def test_the_summary_names_runs_that_cannot_be_told_apart(sample):
    out, result = sample
    assert (
        "cannot be told apart: 2 of 2 adjacent runs by WEIGHTED_PRECISION (P < 0.95 that the assessors order them "
        "as the judge does): teamS-raw24 and teamR-run-a (P 0.86), teamR-run-a and teamR-run-b (P 0.84); "
        f"every pair in {out / 's.pairs.tsv'}"
    ) in " ".join(result.stdout.split())
    # and what the intervals rest on: errors learned elsewhere, not on these topics
    assert (
        f"intervals ({out / 's.intervals.tsv'}): they rest on the judge's errors learned on rag24-support, "
        "not on these topics"
    ) in " ".join(result.stdout.split())


def test_worker_processes_write_the_same_intervals_and_pairs(tmp_path):
    judge_cli("--judge", "citation", *SAMPLE, "--workers", "1", out=tmp_path / "one", name="s")
    judge_cli("--judge", "citation", *SAMPLE, "--workers", "2", out=tmp_path / "two", name="s")
    for f in ("s.intervals.tsv", "s.intervals.parquet", "s.pairs.tsv", "s.pairs.parquet"):
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_an_assessors_label_narrows_its_runs_interval(sample, tmp_path):
    out, _ = sample
    a = judges.read_assessments(out, "s")
    run = "teamR-run-a"
    mine = a[(a.run_id == run) & a.p_any.notna()]
    c = mine.loc[(mine.p_any - mine.p_full).idxmax()]  # the citation the model is least sure about
    labels = tmp_path / "labels.jsonl"
    row = {"run_id": run, "topic_id": c.topic_id, "sentence_index": int(c.sentence_index), "doc_id": c.doc_id}
    labels.write_text(json.dumps({**row, "label": "partially"}) + "\n")
    judge_cli("--judge", "citation", *SAMPLE, "--labels", labels, out=tmp_path / "labelled", name="s")

    def wp(frame):
        r = frame[(frame.run_id == run) & (frame.measure == "WEIGHTED_PRECISION")].iloc[0]
        return r.value, r.high - r.low

    (v0, width0), (v1, width1) = wp(judges.read_intervals(out, "s")), wp(judges.read_intervals(tmp_path / "labelled"))
    assert width1 < width0
    assert v1 != v0  # the label's weight replaced the expected one
    others = judges.read_intervals(out, "s"), judges.read_intervals(tmp_path / "labelled")
    keep = [f[(f.run_id != run) & (f.measure == "WEIGHTED_PRECISION")].reset_index(drop=True) for f in others]
    # other runs' do not move: one label says nothing of a bias shared by every run
    for column in ("value", "low", "high", "estimate"):
        assert keep[1][column].to_numpy() == pytest.approx(keep[0][column].to_numpy(), abs=1e-9)
    assert set(keep[1].made) == {"model (errors learned on rag24-support), with the session's labels"}
    assert set(keep[1].labels) == {0}


# -- the spreads the shipped model records -----------------------------------------------------------
def test_the_shipped_model_records_its_spreads():
    model = load_model("rag24")
    assert set(model.intervals) >= {"report_sd", "run_sd", "bias", "fitted_on", "method"}
    # the shipped model's file predates the spreads' uncertainty: the intervals take the re-fit beside the module
    shipped = json.loads(iv.SHIPPED_SPREADS.read_text(encoding="utf-8"))
    honest = iv.Spreads(shipped["report_sd"], shipped["run_sd"], shipped["bias"], shipped["regime_sd"], "rag24-support")
    honest = honest._replace(topics=tuple(shipped["topic_ids"]))  # rag24-support's 14 topics, to tell a session's apart
    assert iv.session_spreads(model) == iv.session_spreads(None) == honest and len(honest.topics) == 14
    assert honest.run_sd > model.intervals["run_sd"] and honest.regime_sd > 0
    assert "rag24-support" in shipped["fitted_on"]
    assert 0.0 < model.intervals["run_sd"] < model.intervals["report_sd"] < 0.5
    data = model.to_dict()
    assert data["intervals"] == model.intervals and list(data)[-1] == "intervals"
    without = dict(data)
    del without["intervals"]
    assert type(model).from_dict(without).intervals == {}  # an older file loads; it borrows the shipped spreads


@pytest.mark.shared
@pytest.mark.slow
def test_calibrate_fits_the_shipped_spreads(calibrated_rag24_support):
    model, _ = calibrated_rag24_support
    fitted, shipped = json.loads(model.read_text()), load_model("rag24").to_dict()
    assert {k: fitted["intervals"][k] for k in shipped["intervals"]} == shipped["intervals"]
    # the spreads the intervals assume (judges/scores/intervals.json) are this fit's posterior predictive
    honest = json.loads(iv.SHIPPED_SPREADS.read_text(encoding="utf-8"))
    assert fitted["intervals"]["report_sd_predictive"] == honest["report_sd"]
    assert fitted["intervals"]["run_sd_predictive"] == honest["run_sd"]
    assert (
        fitted["intervals"]["run_sd_upper"] > fitted["intervals"]["run_sd_predictive"] >= fitted["intervals"]["run_sd"]
    )
    assert iv.session_spreads(type(load_model("rag24")).from_dict(fitted)) == iv.Spreads.honest(
        fitted["intervals"], iv.REGIME_SD
    )._replace(  # the labels calibrate learned them on, and their topics
        source=fitted["training"]["data"].split(":")[0], topics=tuple(honest["topic_ids"])
    )
    assert fitted["training"]["topic_ids"] == honest["topic_ids"]
    assert {k: fitted[k] for k in ("standardise", "p_any", "p_full", "thresholds")} == {
        k: shipped[k] for k in ("standardise", "p_any", "p_full", "thresholds")
    }


def test_the_report_shows_the_assessors_intervals_and_the_next_runs_probability(sample):
    out, _ = sample
    r = run_cli("report", out, "--name", "s", "--resamples", "50")
    assert r.returncode == 0, r.stderr
    index = (out / "s.report" / "index.html").read_text(encoding="utf-8").replace("\xa0", " ")  # kept on one line
    frame = judges.read_intervals(out, "s")
    wp = frame[frame.measure == "WEIGHTED_PRECISION"].set_index("run_id")
    for _, row in wp.iterrows():
        assert f'<small class="assessors">assessors [{row.low:.3f}, {row.high:.3f}]</small>' in index
    pairs = judges.read_pairs(out, "s").set_index(["run_a", "run_b"])
    p = pairs.loc[("teamS-raw24", "teamR-run-a"), "p_same_order"]
    assert "P(above next)" in index and f'<td data-v="{p:.6g}">{p:.2f}</td>' in index  # teamS-raw24 over teamR-run-a
    accuracy = frame[frame.measure == "CITATION_ACCURACY"].iloc[0]
    assert f"assessors [{accuracy.low:.3f}, {accuracy.high:.3f}]" not in index  # no judge error: not shown


def test_an_llm_answer_and_the_alignment_judge_in_the_assessments():
    rows = [
        ("r", "t", 0, 0, "supported", 0.9, 0.8, 0.6, "YES", 0.9, [], [], None, "One."),
        ("r", "t", 0, 1, "cross_language", 0.0, None, None, None, None, [], [], None, "One."),
        ("r", "t", 1, 0, "unsupported", 0.2, 0.5, 0.1, "guarded", None, [], [], None, "Two."),
    ]
    table = assessments(rows)
    judged = {"CITED_SENTENCES": 1.0, "GROUNDEDNESS": 0.5}  # what recovers the sentences and characters
    _, var = iv.report_variances(table, None, {("r", "t"): judged}, ("numbers", "entities"), 0.1)[("r", "t")]
    q = iv.level_distribution([0.8, 0.0, 0.5], [0.6, 0.0, 0.1], [likelihood("YES", 0.9, 0.1), (1, 1, 1), (1, 1, 1)])
    q[1] = iv.UNKNOWN  # no probabilities, no answer: none or full
    v = iv.weight_variances(q, [False] * 3)  # a guarded answer says nothing: the model's levels
    offset = (0.5 * q[:, 1] + q[:, 2] - np.array([0.9, 0.0, 0.2])) ** 2  # the judge's weights' from the mean
    assert var["WEIGHTED_PRECISION"] == pytest.approx((v + offset).sum() / 9)
    assert v[1] == pytest.approx(0.25) and v[1] + offset[1] == pytest.approx(0.5)


def test_one_topic_gives_no_topic_interval():
    per_topic = {("a", "t"): {"WEIGHTED_PRECISION": 0.6}, ("b", "t"): {"WEIGHTED_PRECISION": 0.4}}
    reports = {k: (1.0, {"WEIGHTED_PRECISION": 0.01}) for k in per_topic}
    found = iv.trust(per_topic, ["a", "b"], ["t"], reports, iv.Spreads(0.1, 0.05), ["WEIGHTED_PRECISION"])
    (_, _, v, lo, hi, lot, hit, t, *_), _ = found.intervals
    assert (v, t) == (0.6, 1) and lo < v < hi and math.isnan(lot) and math.isnan(hit)
    [(_, _, _, _, p, p_topics)] = found.pairs
    assert 0.5 < p < 1 and math.isnan(p_topics)


# -- labels drawn with known probabilities: PPI ------------------------------------------------------
def ppi_arrays(seed: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 40) / 2.0
    yhat = np.clip(0.3 * y + rng.normal(0.35, 0.25, 40), 0, 1)  # a weak judge: PPI++ tunes lam below 1
    yhat_unlabeled = np.clip(rng.normal(0.5, 0.3, 300), 0, 1)
    return y, yhat, yhat_unlabeled, rng.uniform(0.2, 3.0, 40), rng.uniform(0.2, 3.0, 300)


@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.4])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_estimator_is_ppi_pys_on_the_same_arrays(lam, weighted):
    ppi_py = pytest.importorskip("ppi_py", reason="the test extra: pip install --no-deps ppi-python (README)")
    y, yhat, unlabeled, w, wu = ppi_arrays()
    weights = {"w": w, "w_unlabeled": wu} if weighted else {}
    for alpha in (0.05, 0.1):
        estimate, se, tuned = iv.ppi_mean_ci(y, yhat, unlabeled, alpha, lam, **weights)
        low, high = ppi_py.ppi_mean_ci(y, yhat, unlabeled, alpha=alpha, lam=lam, **weights)
        z = float(__import__("scipy").stats.norm.ppf(1 - alpha / 2))
        assert estimate - z * se == pytest.approx(float(low[0]), abs=1e-9)
        assert estimate + z * se == pytest.approx(float(high[0]), abs=1e-9)
        if lam is None:
            assert 0.0 < tuned < 1.0  # power-tuned, not clipped: the tuning itself is compared
    # the whole population judged (a run's every citation): the judge's mean is known, only the rectifier varies
    estimate, se, _ = iv.ppi_mean_ci(y, yhat, unlabeled, lam=0.7, finite=True, **weights)
    w_n = np.ones(40) if not weighted else w / w.sum() * 40
    rectifier = w_n * (y - 0.7 * yhat)
    assert se == pytest.approx(np.std(rectifier) / math.sqrt(40), abs=1e-12)


def test_sure_labels_are_known_and_drawn_ones_correct_the_judge_without_bias():
    rng = np.random.default_rng(5)
    n = 120
    lev = np.full(n, 1.0 / n)
    judged = rng.uniform(0.2, 0.9, n)
    human = np.clip(np.round((judged - 0.15 + rng.normal(0, 0.3, n)) * 2) / 2, 0, 1)  # the judge overestimates
    truth = float(np.sum(lev * human))
    every = iv.labelled_estimate(lev, judged, human, np.ones(n, bool), np.ones(n), 0.01, 0.1)
    assert (every.value, every.variance, every.labels_value) == (pytest.approx(truth), 0.0, pytest.approx(truth))
    none = iv.labelled_estimate(lev, judged, human, np.zeros(n, bool), np.zeros(n), 0.01, 0.1)
    assert (none.value, none.variance, none.labels) == (pytest.approx(judged.mean()), 0.01, 0)
    # 24 drawn at random (probability 0.2): the labels alone (PPI with lam 0, the Hajek estimate) and PPI with a
    # judge's error model of no weight are unbiased over the draws; the judge alone is 0.15 too high
    alone, ppi, covered = [], [], []
    for seed in range(400):
        drawn = np.zeros(n, bool)
        drawn[np.random.default_rng(seed).choice(n, 24, replace=False)] = True
        e = iv.labelled_estimate(lev, judged, human, drawn, np.where(drawn, 0.2, 0.0), 1e6, 0.0)
        alone.append(e.labels_value)
        ppi.append(e.value)
        lo, hi = iv.interval(e.value, e.variance)
        covered.append(lo <= truth <= hi)
        assert e.labels == 24 and e.effective == pytest.approx(24)
    assert judged.mean() - truth > 0.1
    assert abs(np.mean(alone) - truth) < 0.01 and abs(np.mean(ppi) - truth) < 0.01
    assert np.mean(covered) >= 0.9


def test_planned_labels_come_back_with_their_probabilities_and_make_the_interval(sample, tmp_path):
    out, _ = sample
    plan = tmp_path / "plan.jsonl"
    r = run_cli("plan-assessments", out, "--name", "s", "--count", "8", "--output", plan)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in plan.read_text().splitlines()]
    p = [line["inclusion_probability"] for line in lines]
    sure = 8 - round(PLAN_MIX * 8)  # the rest drawn at random
    assert len(lines) == 8 and p.count(1.0) == sure and all(0 < x < 1 for x in p if x != 1.0)
    for line in lines:
        line["label"] = "not_supported"  # stricter than the judge: every planned citation unsupported
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    judge_cli("--judge", "citation", *SAMPLE, "--labels", labels, out=tmp_path / "labelled", name="s")
    frame = judges.read_intervals(tmp_path / "labelled", "s")
    wp = frame[frame.measure == "WEIGHTED_PRECISION"].set_index("run_id")
    per_run = pd.Series([line["run_id"] for line in lines]).value_counts()
    for run, row in wp.iterrows():
        n = int(per_run.get(run, 0))
        assert row.labels == n
        learned = "model (errors learned on rag24-support)"
        assert row.made == (
            f"{learned} and {n} labels, drawn as planned" if n else f"{learned}, with the session's labels"
        )
        assert row.low <= row.estimate <= row.high
    # the same labels without their probabilities: an organiser's own, taken as drawn at random
    for line in lines:
        del line["inclusion_probability"]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    judge_cli("--judge", "citation", *SAMPLE, "--labels", labels, out=tmp_path / "own", name="s")
    own = judges.read_intervals(tmp_path / "own", "s")
    made = set(own[(own.measure == "WEIGHTED_PRECISION") & (own.labels > 0)].made)
    assert made and all(m.endswith("taken as drawn at random (no inclusion probabilities)") for m in made)
    # qrels and leaderboards do not depend on the probabilities
    for suffix in ("qrels", "leaderboard.txt"):
        assert (tmp_path / "own" / f"s.{suffix}").read_bytes() == (tmp_path / "labelled" / f"s.{suffix}").read_bytes()


def test_a_bad_inclusion_probability_is_one_line_naming_file_line_and_field(sample, tmp_path):
    out, _ = sample
    a = judges.read_assessments(out, "s")
    c = a[a.p_any.notna()].iloc[0]
    row = {"run_id": c.run_id, "topic_id": c.topic_id, "sentence_index": int(c.sentence_index), "doc_id": c.doc_id}
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({**row, "label": "supported", "inclusion_probability": 1.5}) + "\n")
    r = cli_in_process("--judge", "citation", *SAMPLE, "--out-dir", tmp_path / "o", "--name", "s", "--labels", labels)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].count("\n") == 0
    assert f"{labels}:1" in r.stderr and "inclusion_probability" in r.stderr and "(0, 1]" in r.stderr
    assert not (tmp_path / "o" / "s.intervals.tsv").exists()


def test_the_bias_shared_by_every_run_is_learned_from_the_labels_drawn_at_random():
    rng = np.random.default_rng(6)
    judged = rng.uniform(0.3, 0.9, 400)
    human = np.clip(judged - 0.08 + rng.normal(0, 0.2, 400), 0, 1)  # the labels 0.08 below the judge
    assert iv.regime_update(judged[:1], human[:1], [0.1], 0.05) == (0.0, 0.05)  # one label: the prior
    shift, sd = iv.regime_update(judged, human, np.full(400, 0.1), 0.05)
    residual = float(np.mean(human - judged))
    se = float(np.std(human - judged)) / math.sqrt(400)
    assert shift == pytest.approx(residual * 0.05**2 / (0.05**2 + se**2))
    assert sd == pytest.approx(math.sqrt(0.05**2 * se**2 / (0.05**2 + se**2)))
    assert -0.09 < shift < -0.06 and sd < 0.012
    # that bias moves the judge's values the judge is unsure of, not a missing citation's (known: 0)
    lev = np.full(4, 0.25)
    values = np.array([0.6, 0.8, 0.0, 0.5])
    none = np.zeros(4, dtype=bool)
    uncertain = np.array([True, True, False, True])
    moved = iv.labelled_estimate(lev, values, values, none, np.zeros(4), 0.01, 0.05, shift * uncertain)
    assert moved.value == pytest.approx(float(np.sum(lev * values)) + 0.75 * shift)
    assert iv.labelled_estimate(lev, values, values, none, np.zeros(4), 0.01, 0.05, shift).value == pytest.approx(
        float(np.sum(lev * values)) + shift
    )


def test_the_sure_labels_bias_is_the_generalised_least_squares_mean_of_their_residuals():
    rng = np.random.default_rng(0)
    n = 60
    run = rng.choice(["a", "b", "c", "d"], n)
    report = np.char.add(np.char.add(run, "\t"), rng.choice(["t1", "t2", "t3"], n))
    within = rng.uniform(0.02, 0.25, n)
    report_sd = np.where(np.char.endswith(report, "t1"), 0.1, 0.15)  # per label, as the bench's per-topic fits
    run_sd = np.where(np.char.endswith(report, "t2"), 0.03, 0.05)
    residual = rng.normal(0.0, 0.3, n)
    same_report, same_run = report[:, None] == report[None, :], run[:, None] == run[None, :]
    cov = np.diag(within) + same_report * np.outer(report_sd, report_sd) + same_run * np.outer(run_sd, run_sd)
    inverse, one = np.linalg.inv(cov), np.ones(n)
    mean, variance = iv.sure_bias(residual, within, report, run, report_sd, run_sd)
    assert mean == pytest.approx(one @ inverse @ residual / (one @ inverse @ one), abs=1e-12)
    assert variance == pytest.approx(1.0 / (one @ inverse @ one), rel=1e-9)
    # a label the judge was sure of (a missing citation) says nothing; none at all: no estimate
    assert iv.sure_bias(np.append(residual, 5.0), np.append(within, 0.0), np.append(report, "e\tt1"),
                        np.append(run, "e"), np.append(report_sd, 0.1), np.append(run_sd, 0.05)) == pytest.approx(
        (mean, variance))  # fmt: skip
    assert iv.sure_bias([0.3], [0.0], ["a\tt1"], ["a"], 0.1, 0.05) == (0.0, math.inf)
    # combined with the labels drawn at random and the prior by their precisions
    judged = rng.uniform(0.3, 0.9, 50)
    human = np.clip(judged - 0.05 + rng.normal(0, 0.2, 50), 0, 1)
    design, sd_design = iv.regime_update(judged, human, np.full(50, 0.1), 1e6)
    both, sd_both = iv.regime_update(judged, human, np.full(50, 0.1), 0.05, (mean, variance))
    precision = 1 / 0.05**2 + 1 / variance + 1 / sd_design**2
    assert sd_both == pytest.approx(math.sqrt(1 / precision))
    assert both == pytest.approx((mean / variance + design / sd_design**2) / precision)
    assert iv.regime_update([], [], [], 0.05, (mean, variance)) == pytest.approx(
        (mean * 0.05**2 / (0.05**2 + variance), math.sqrt(0.05**2 * variance / (0.05**2 + variance)))
    )


def test_a_runs_shared_errors_after_its_sure_labels_are_the_normal_posterior():
    u = np.array([0.8, 0.5, 1.0])
    report_sd, run_sd = np.array([0.15, 0.12, 0.15]), np.array([0.05, 0.03, 0.05])
    of_report, within, residual = np.array([0, 0, 1]), np.array([0.1, 0.2, 0.15]), np.array([0.3, -0.1, 0.2])
    s = np.bincount(of_report, 1 / within, minlength=3)
    m = np.bincount(of_report, residual / within, minlength=3)
    mean, after, before = iv.shared_posterior(u, report_sd, run_sd, s, m, 4)
    # dense: (report errors, run error / run_sd) a priori independent; a label sees its report's and the run's
    prior = np.diag(np.append(report_sd**2, 1.0))
    h = np.zeros((3, 4))
    h[np.arange(3), of_report] = 1.0
    h[:, 3] = run_sd[of_report]
    gain = prior @ h.T @ np.linalg.inv(h @ prior @ h.T + np.diag(within))
    posterior, post_mean = prior - gain @ h @ prior, gain @ residual
    c = np.append(u, u @ run_sd) / 4
    assert mean == pytest.approx(post_mean[:3] + run_sd * post_mean[3])
    assert (after, before) == pytest.approx((c @ posterior @ c, c @ prior @ c))
    assert before == pytest.approx((np.sum(u**2 * report_sd**2) + (u @ run_sd) ** 2) / 16)  # judge_variance's parts
    # without labels, nothing learned
    none = iv.shared_posterior(u, 0.15, 0.05, np.zeros(3), np.zeros(3), 4)
    assert np.all(none[0] == 0) and none[1] == none[2] == pytest.approx(
        iv.judge_variance([0, 0, 0], u, 4, iv.Spreads(0.15, 0.05))
    )


def test_sure_labels_read_through_the_error_model_keep_its_promise_under_it_and_narrow_the_intervals():
    """Judge values and human weights drawn from the error model (a bias shared by every run, a
    run's and a report's error, an independent one per citation), three citations of two reports of
    half the runs labelled for sure: the runs' 95% intervals with the sure labels read through the
    model (sure_bias, shared_posterior) cover as often as without, and are narrower."""
    rng = np.random.default_rng(11)
    report_sd, run_sd, regime_sd, runs, topics, n = 0.12, 0.05, 0.05, 24, 4, 5
    hits, widths = {True: [], False: []}, {True: [], False: []}
    for _ in range(200):
        bias = rng.normal(0, regime_sd)
        f, v = rng.uniform(0.2, 0.9, (runs, topics, n)), rng.uniform(0.03, 0.2, (runs, topics, n))
        run_error, report_error = rng.normal(0, run_sd, (runs, 1, 1)), rng.normal(0, report_sd, (runs, topics, 1))
        h = f + bias + run_error + report_error + rng.normal(0, np.sqrt(v))
        sure = np.zeros(f.shape, dtype=bool)
        sure[: runs // 2, :2, :3] = True
        run_of, report_of = np.indices(f.shape)[0], np.indices(f.shape)[0] * topics + np.indices(f.shape)[1]
        for through in (True, False):
            found = (0.0, math.inf)
            if through:
                found = iv.sure_bias((h - f)[sure], v[sure], report_of[sure], run_of[sure], report_sd, run_sd)
            shift, sd = iv.regime_update([], [], [], regime_sd, found)
            for r in range(runs):
                rest = ~sure[r]
                u = rest.mean(axis=1)
                value = float(np.mean(np.where(sure[r], h[r], f[r] + shift)))
                s = np.sum(np.where(sure[r], 1 / v[r], 0.0), axis=1)
                m = np.sum(np.where(sure[r], (h[r] - f[r] - shift) / v[r], 0.0), axis=1)
                mean, after, before = iv.shared_posterior(u, report_sd, run_sd, s, m, topics)
                value += float(np.sum(u * mean)) / topics if through else 0.0
                var = np.sum(np.where(rest, v[r], 0.0)) / (n * topics) ** 2 + (after if through else before)
                var += sd**2 * (u.sum() / topics) ** 2
                low, high = iv.interval(value, var, -1.0, 2.0)
                hits[through].append(low <= h[r].mean() <= high)
                widths[through].append(high - low)
    for through in (True, False):
        assert 0.93 <= np.mean(hits[through]) <= 0.97
    assert np.mean(widths[True]) < 0.97 * np.mean(widths[False])


# -- nugget measures: the same estimator over nugget pairs --------------------------------------------
def nugget_session(seed: int = 7):
    """3 runs x 4 topics x 6 nuggets (2 vital) with the judge's levels, a third of the pairs labelled:
    4 for sure, the rest drawn at random with probability 0.3 (as a plan-assessments file gives them)."""
    from judges.nuggets.judge import NuggetJudgment

    rng = np.random.default_rng(seed)
    words = ("not_support", "partial_support", "support")
    judged, probabilities = {}, {}
    for run in ("a", "b", "c"):
        for topic in ("t1", "t2", "t3", "t4"):
            rows = []
            for i in range(6):
                p = rng.dirichlet((1.0, 1.0, 1.0))  # not, partial, support
                own = (float(p[2]), float(p[1]), float(p[0]))
                label = int(rng.choice(3, p=p))  # the assessors' level drawn from the judge's own levels
                labelled = rng.random() < 0.35
                j = NuggetJudgment(
                    run, topic, i, f"fact {i}", "vital" if i < 2 else "okay", words[int(np.argmax(p))], *own,
                    own[0] + 0.5 * own[1], (), "", (),
                )  # fmt: skip
                if labelled:
                    level = np.eye(3)[label]
                    j = __import__("dataclasses").replace(
                        j, assignment=words[label], p_support=level[2], p_partial=level[1], p_not=level[0],
                        labelled=True, model=own,
                    )  # fmt: skip
                    probabilities[(run, topic, i)] = 1.0 if len(probabilities) < 4 else 0.3
                rows.append(j)
            judged[(run, topic)] = rows
    return judged, probabilities


@pytest.mark.parametrize("measure", ["NUGGET_ALL", "NUGGET_VITAL_STRICT"])
def test_the_estimator_is_ppi_pys_on_a_nugget_measure(measure):
    ppi_py = pytest.importorskip("ppi_py", reason="the test extra: pip install --no-deps ppi-python (README)")
    judged, probabilities = nugget_session()
    found = iv.nugget_draws(judged, probabilities, 4)
    draws = found.measures[measure]
    strict, vital = measure.endswith("STRICT"), "VITAL" in measure
    for run, (lev, value, human, labelled, probability, within) in draws.rows.items():
        rows = [j for t in ("t1", "t2", "t3", "t4") for j in judged[(run, t)] if not vital or j.importance == "vital"]
        own = np.array([iv.nugget_levels(j) for j in rows])
        # the arrays: the judge's own value (not the label's), the label, 1 / (n T) per pair
        assert value == pytest.approx(own[:, 0] if strict else own[:, 0] + 0.5 * own[:, 1], abs=1e-15)
        assert labelled.tolist() == [j.labelled for j in rows]
        levels = [("not_support", "partial_support", "support").index(j.assignment) for j in rows]
        expected = [(lv == 2) if strict else lv / 2 for lv in levels]
        assert human[labelled] == pytest.approx(np.array(expected, dtype=float)[labelled])
        assert lev == pytest.approx(np.full(len(rows), 1 / ((2 if vital else 6) * 4)))
        drawn = labelled & (probability < 1.0)
        rest = ~(labelled & (probability >= 1.0))
        w = lev[drawn] / probability[drawn]
        for lam in (None, 1.0, 0.0):
            estimate, se, _ = iv.ppi_mean_ci(human[drawn], value[drawn], value[rest], 0.05, lam, w, lev[rest])
            low, high = ppi_py.ppi_mean_ci(human[drawn], value[drawn], value[rest], alpha=0.05, lam=lam, w=w,
                                           w_unlabeled=lev[rest])  # fmt: skip
            assert estimate - iv.Z95 * se == pytest.approx(float(low[0]), abs=1e-9)
            assert estimate + iv.Z95 * se == pytest.approx(float(high[0]), abs=1e-9)
        # the run's estimate with a judge of no weight is the labels' PPI over the pairs not known for sure
        e = iv.labelled_estimate(lev, value, human, labelled, probability, 1e12, within)
        sure = labelled & (probability >= 1.0)
        lam = None if drawn.sum() >= 10 else 1.0
        mean, _, _ = iv.ppi_mean_ci(human[drawn], value[drawn], value[rest], lam=lam, w=w, w_unlabeled=lev[rest],
                                    finite=True)  # fmt: skip
        assert e.value == pytest.approx(float(np.sum(lev[sure] * human[sure]) + lev[rest].sum() * mean), abs=1e-6)
    assert draws.how == "drawn as planned" and draws.labels == sum(
        j.labelled for rows in judged.values() for j in rows if not vital or j.importance == "vital"
    )


def test_nugget_intervals_take_the_labels_ppi_and_the_session_without_them_is_unchanged():
    judged, probabilities = nugget_session()
    runs, topics = ["a", "b", "c"], ["t1", "t2", "t3", "t4"]
    per_topic = {}
    for key, rows in judged.items():
        s = np.array([j.p_support for j in rows])
        g = s + 0.5 * np.array([j.p_partial for j in rows])
        v = np.array([j.importance == "vital" for j in rows])
        per_topic[key] = {"NUGGET_ALL": g.mean(), "NUGGET_ALL_STRICT": s.mean(), "NUGGET_VITAL": g[v].mean(),
                          "NUGGET_VITAL_STRICT": s[v].mean()}  # fmt: skip
    measures = tuple(iv.NUGGET_STRICT)
    reports = iv.nugget_report_variances(judged, known=lambda j: j.labelled)
    plain = iv.nugget_trust(per_topic, runs, topics, reports, measures)
    found = iv.nugget_draws(judged, probabilities, len(topics))
    rest = iv.nugget_report_variances(
        judged, known=lambda j: j.labelled, drawn=lambda j: (j.run_id, j.topic_id, j.nugget_index) in found.random
    )
    assert len(found.random) == sum(p < 1 for p in probabilities.values())
    labelled = iv.nugget_trust(per_topic, runs, topics, reports, measures, None, found, rest)
    by = {(r[0], r[1]): r for r in labelled.intervals}
    for row in plain.intervals:
        other = by[(row[0], row[1])]
        assert other[2] == row[2]  # the judge's value (the leaderboard's) is the same
        assert row[8] == row[2] and row[9] == "model (errors learned on rag24-nuggets)"
        assert other[9].endswith("labels, drawn as planned") and other[10] > 0
        assert other[3] <= other[8] <= other[4]
    # the pairs are on each nugget measure's own labelled estimates
    assert {p[2] for p in labelled.pairs} == set(measures) and len(labelled.pairs) == len(plain.pairs)


def test_the_nugget_regime_term_is_the_spread_between_topics_and_the_shipped_file_carries_one_per_measure():
    rng = np.random.default_rng(8)
    runs, topics, pairs = 30, 16, 10
    topic_bias = rng.normal(0.0, 0.1, topics)  # each topic's assessor: its own way of labelling
    run_ids, topic_ids, human, judged = [], [], [], []
    for t in range(topics):
        for r in range(runs):
            p = rng.uniform(0.2, 0.8, pairs)
            run_ids += [f"r{r}"] * pairs
            topic_ids += [f"t{t}"] * pairs
            judged += p.tolist()
            human += (rng.random(pairs) < np.clip(p + topic_bias[t], 0, 1)).astype(float).tolist()
    judged_a = np.array(judged)
    variance = judged_a * (1 - judged_a)
    args = (np.array(run_ids), np.array(topic_ids), np.array(human), judged_a, variance)
    point = iv.fit_regime(*args)
    assert 0.05 < point < 0.16  # the topics' spread (0.1), not the pairs' noise
    assert iv.fit_regime(*args, "upper") > point and iv.fit_regime(*args, "predictive") > point
    # no topic effect: the spread between topics is near 0
    flat = (
        np.array(run_ids),
        np.array(topic_ids),
        (rng.random(len(judged_a)) < judged_a).astype(float),
        judged_a,
        variance,
    )
    assert iv.fit_regime(*flat) < 0.03
    spreads = iv.nugget_spreads()
    shipped = json.loads(iv.NUGGET_SPREADS.read_text())["measures"]
    assert set(spreads) == set(iv.NUGGET_STRICT)
    assert all(spreads[m].regime_sd == shipped[m]["regime_sd"] > 0 for m in spreads)


def test_nugget_f1s_interval_carries_both_judges_shared_errors():
    judged, _ = nugget_session()
    runs, topics = ["a", "b", "c"], ["t1", "t2", "t3", "t4"]
    per_topic = {}
    for key, rows in judged.items():
        g = np.array([j.p_support + 0.5 * j.p_partial for j in rows]).mean()
        precision = 0.3 + 0.1 * topics.index(key[1])
        per_topic[key] = {
            "NUGGET_ALL": g,
            "WEIGHTED_PRECISION": precision,
            "NUGGET_F1": 2 * g * precision / (g + precision),
        }
    citation = {k: (1.0, {"WEIGHTED_PRECISION": 0.001}) for k in per_topic}
    reports = iv.nugget_report_variances(judged, citation, per_topic)
    nugget = {"NUGGET_ALL": iv.Spreads(0.05, 0.02, 0.0, 0.03)}

    def width(citation_spreads):
        found = iv.nugget_trust(
            per_topic, runs, topics, reports, ("NUGGET_F1",), nugget, citation_spreads=citation_spreads
        )
        return {r[0]: r[4] - r[3] for r in found.intervals}

    alone, both = width(iv.Spreads()), width(iv.Spreads(0.1, 0.05, 0.0, 0.05))
    assert all(both[r] > alone[r] > 0 for r in runs)
    # the shared parts add in quadrature, each scaled by the answers' mean gradient of F1
    grads = [iv.f1_gradient(v["WEIGHTED_PRECISION"], v["NUGGET_ALL"]) for v in per_topic.values()]
    c_p, c_r = np.mean([g[0] for g in grads]), np.mean([g[1] for g in grads])
    t = len(topics)
    u = {r: [reports[(r, x)][0] for x in topics] for r in runs}
    report_sd = math.hypot(c_r * 0.05, c_p * 0.1)
    run_var = math.hypot(c_r * 0.02, c_p * 0.05) ** 2 + math.hypot(c_r * 0.03, c_p * 0.05) ** 2  # run and regime
    for r in runs:
        independent = sum(reports[(r, x)][1]["NUGGET_F1"] for x in topics)
        shared = report_sd**2 * sum(np.square(u[r])) + run_var * sum(u[r]) ** 2
        var = (independent + shared) / t**2
        assert both[r] == pytest.approx(2 * iv.Z95 * math.sqrt(var), rel=1e-9)


def test_the_bench_matched_world_keeps_each_run_its_own_number_of_reports():
    """bench/intervals.py's matched world (issue 38): a run's report residuals come from a donor with at
    least as many reports with citations, taken without replacement, so a run with the most reports is
    its own donor and keeps its truth exactly; the old resampled world (with replacement) does not."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("bench_intervals", ROOT / "bench" / "intervals.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # run a: one report (t1, 2 citations); run b: three (1, 2 and 1 citations) and t4 judged without one
    run = np.array(["a", "a", "b", "b", "b", "b"])
    topic = np.array(["t1", "t1", "t1", "t2", "t2", "t3"])
    runs_topics = {"a": ["t1"], "b": ["t1", "t2", "t3", "t4"]}
    f = np.array([0.5, 1.0, 0.25, 0.5, 0.75, 1.0])
    n = pd.Series(1, index=pd.MultiIndex.from_arrays([run, topic])).groupby(level=[0, 1]).transform("size")
    lev = 1.0 / (n.to_numpy() * np.array([len(runs_topics[r]) for r in run]))
    truth = pd.Series({("a", "t1"): 0.25, ("b", "t1"): 0.75, ("b", "t2"): 0.25, ("b", "t3"): 0.5, ("b", "t4"): 0.0})
    c = SimpleNamespace(
        runs=["a", "b"],
        rows={r: np.flatnonzero(run == r) for r in ("a", "b")},
        topic=topic,
        runs_topics=runs_topics,
        truth=truth,
        f=f,
        lev=lev,
    )
    own = {"a": 0.25, "b": (0.75 + 0.25 + 0.5) / 4}
    residuals = {0.25 - 0.75, 0.75 - 0.25, 0.25 - 0.625, 0.5 - 1.0}  # a's, then b's three
    rng = np.random.default_rng(0)
    for _ in range(20):
        H = bench.matched_truths(c, rng)
        assert H["b"] == pytest.approx(own["b"])
        assert any(H["a"] == pytest.approx(min(0.75 + r, 1.0)) for r in residuals)  # truth clipped to [0, 1]
    resid = {x: bench.rep_truth_minus_judge(c, x) for x in c.runs}
    old = [bench.resampled_truths(c, rng, "own", resid)["b"] for _ in range(20)]
    assert any(h != pytest.approx(own["b"]) for h in old)


def test_the_intervals_say_when_the_model_was_fitted_on_these_topics(judged_rag24_mini):
    """rag24-mini's three topics are among the fourteen of rag24-support the shipped model's errors
    were learned on: the summary and the report say so, and no longer "not on these topics"."""
    from judges.report.leaderboard import board
    from judges.report.pages import intervals_legend

    judged, stdout = judged_rag24_mini
    said = " ".join(stdout.split())
    assert (
        "they rest on the judge's errors learned on rag24-support, 3 of these 3 topics among them "
        "(the model was fitted on them: narrower than on new topics)"
    ) in said
    assert "not on these topics" not in said
    table = judges.read_intervals(judged, "M")
    assert set(table[table.measure == "WEIGHTED_PRECISION"].made) == {
        "model (errors learned on rag24-support; 3 of these topics among them)"
    }
    legend = intervals_legend(board(judges.read_leaderboard(judged, "M"), intervals=table), "M")
    assert "3 of these 3 topics among them" in legend and "not on these topics" not in legend


def test_learned_on_counts_only_the_sessions_topics_the_model_has():
    from judges.scores.basis import basis, learned_on

    learned = ("rag24-support", ("t1", "t2"))
    assert learned_on(*learned, ["t3", "t4"]) == "model (errors learned on rag24-support)"
    assert basis(learned_on(*learned, ["t3", "t4"]), 2) == ("errors learned on rag24-support", "not on these topics")
    made = learned_on(*learned, ["t2", "t3"]) + " and 4 labels, drawn at random"
    where, these = basis(made, 2)
    assert where == "errors learned on rag24-support" and these.startswith("1 of these 2 topics among them")
    assert learned_on("", (), ["t1"]) == "model" and basis("model", 1)[1] == "not on these topics"
