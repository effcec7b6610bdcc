"""How far the leaderboard can be trusted: intervals for the values the track's assessors would
give, and the probability that they would order two runs as the judge does.

**Per citation.** The judge's weight ``w`` of a citation (the assessments' ``weight``) estimates
the TREC weight people would give it (none 0, partial 0.5, full 1). Its error is taken from the
support model's distribution over the three levels: none ``1 - P(any)``, partial ``P(any) -
P(full)``, full ``P(full)``; where the grounding cap rules full support out (the document lacks a
number or entity of the sentence, of a kind in ``grounding.cap``) full weighs as partial. When
the LLM answered, the distribution is first updated by Bayes' rule with the answer
(:func:`judges.attest.answers.likelihood`, ``attest.answer_error``), as :mod:`judges.engine.weights`
does. The independent error of ``w`` is its expected squared error under that distribution,
``Var(w) + (E[w] - w)^2``: ``Var(w)`` (:func:`judges.attest.plan.weight_variance`) for the default
expected weights, whose ``w`` is ``E[w]``; a weight the judge did not take from the distribution
(a status's weight: ``leaderboard.weights: status``, a guarded citation) adds its offset.
Conventions for the rest:

* a ``missing`` citation weighs 0 and people give it nothing: known, error 0;
* a citation without probabilities (``cross_language``; every citation of the ``alignment``
  judge) is unknown: none or full with probability 1/2 each (variance 0.25, the largest a weight
  in [0, 1] can have, as :mod:`judges.attest.plan` takes it; 0.5 about a weight of 0 or 1); with an LLM
  answer, the three levels are equally likely before it;
* a citation with an assessor's label (a ``human_label`` in the assessments) is known: error 0.

**Per run (WEIGHTED_PRECISION).** A run's ``all`` value is the mean over its ``T`` topics (topics
it did not answer count 0, as the leaderboard counts them) of each report's mean citation weight.
Its error against the assessors is

    Var(H_r - J_r) = V_ind + report_sd^2 x sum_t u_t^2 / T^2 + run_sd^2 x (sum_t u_t / T)^2

* ``V_ind = sum_t sum_i Var(w_i) / (n_t^2 T^2)``: the citations' independent errors (leverage
  ``1 / (n_t T)``);
* an error shared by the citations of one report (sd ``report_sd``) and one shared by all of a
  run's reports (sd ``run_sd``), which independence per citation misses: the support model is
  wrong about a topic's or a system's kind of answer as a whole. ``u_t`` is the share of report
  ``t``'s citations whose weight is uncertain (neither labelled nor missing; 0 for a report
  without citations), so a labelled or empty report shares no error and the run term is
  ``run_sd^2`` when every report of the run has unlabelled citations.

and a bias shared by every run's citations (sd ``regime_sd``, on ``(sum_t u_t / T)^2`` like the
run part): labels made another way than those the errors were learned on. THESE INTERVALS REST
ON ERRORS LEARNED ON LABELLED DATA, and say so (``made``), with how many of the session's topics
that data holds when the model names its topics (:mod:`judges.scores.basis`): where it
holds them, the model has seen them and the intervals are narrower than on new topics.

``report_sd``, ``run_sd`` (and the mean bias, human minus judge per citation weight, recorded
but not applied; with ``line=True`` a line of the run's mean error in its judged value,
:meth:`Spreads.line`, measured in bench/intervals.py and not shipped; likewise a heteroscedastic
run term, :func:`fit_run_scale`) are fitted by
:func:`fit_spreads`, restricted maximum likelihood of the residuals human minus judge per labelled
report, with the judge's probabilities cross-validated
by topic, which also gives their one-sided 95% upper bounds and posterior predictive (a spread
learned from a few topics is not known to two digits); ``run_judge.py calibrate`` records them in
the model file (``intervals``) and the intervals take the posterior predictive. For the shipped
model, and a model file without them, the intervals take :data:`SHIPPED_SPREADS`
(``judges/scores/intervals.json``, read by :mod:`judges.formats.intervals`: the re-fit on
rag24-support, with ``regime_sd``, an allowance not a fit), :func:`session_spreads`.

**With labels** (:func:`label_draws`, :func:`labelled_estimate`): weighted precision's
``estimate`` per run combines the labels drawn for sure (known), a PPI correction from the labels
drawn at random with known inclusion probabilities (``plan-assessments``; an organiser's own
labels taken as a random sample) and the judge's error model, by their precisions; the shared
bias is learned from all drawn labels (:func:`regime_update`); ``low_labels``/``high_labels`` are
the labels alone. :func:`ppi_mean_ci` is ``ppi_py``'s PPI++ mean, tested against it. Measured in
bench/intervals.py and not shipped: the labels drawn for sure read through the error model, for
the shared bias (:func:`sure_bias`) and for a run's and its reports' errors
(:func:`shared_posterior`): narrower intervals on rag24-support's unseen topics, less coverage
where the runs' errors are another's.

**Intervals.** 95% normal intervals around the judge's value, clipped to the measure's range:
``low``/``high`` for the assessors' value on the same topics (judge error only), and
``low_topics``/``high_topics`` adding topic sampling (the variance of the run's per-topic values
over ``T``, ``T - 1`` degrees of freedom): the assessors' value on new topics of the same kind
(not estimable from one topic: NaN).

**Other measures.** ``CITATION_ACCURACY``, ``AVG_CITATIONS``, ``CITED_SENTENCES``,
``NUMERIC_GROUNDED``, ``ENTITY_GROUNDED`` and ``PLACEHOLDER_FREE`` do not depend on support
judgments: no judge error (``low = high = value``), topic sampling only. For the other support
measures the independent error is likewise the expected squared error of the judge's value
under the same per-citation levels, citations independent (exact under that independence):
``CITATION_SUPPORT`` per citation, ``P(full)`` where the judge did not say ``supported`` and
``1 - P(full)`` where it did; ``SENTENCE_SUPPORT`` per sentence, the same with ``P(some citation
of the sentence is full)``; ``GROUNDEDNESS`` the same, weighted by the sentence's characters;
``PERFECT_CITATIONS`` per report, with ``P(every citation is full)``; ``WEIGHTED_RECALL`` per
sentence, the variance of the best weight of its citations plus the offset of the judge's best
weight from its mean. (The variance of the people's value alone, without the threshold's offset,
covers too little: 40 of 45 runs for ``CITATION_SUPPORT`` in bench/intervals.py.)
APPROXIMATIONS: (1) the shared errors of these measures are weighted precision's, scaled by the
session's ratio of the measure's independent error to weighted precision's; (2) the number of
sentences and the characters of a report are recovered from its ``CITED_SENTENCES`` and
``GROUNDEDNESS`` values (exact, except the characters of a report with no supported sentence,
taken as its cited sentences' average length).

**Pairs.** For each pair of runs (``run_a`` ahead of ``run_b`` on the headline,
:data:`judges.core.measures.HEADLINE`, ``gap`` their difference), ``p_same_order = Phi(gap / sd)``,
``sd^2`` the sum of both runs' judge-error variances (their reports are different citations, so
the report parts add, and so do the run parts), and ``p_same_order_topics`` with the variance of
the per-topic differences over ``T`` added (paired: both runs are scored on the same topics).

``bench/intervals.py`` measures weighted precision's intervals and pairs against NIST's assessors
on rag24-support's unseen topics (the other measures' are not measured: rag24-support's labels
give only weighted precision per report).


The pieces, one concept each: :mod:`judges.scores.spreads` (the spreads and a run's variance,
interval and pair probability), :mod:`judges.scores.reml` (fitting the spreads),
:mod:`judges.scores.levels` (per citation, the levels people would give),
:mod:`judges.scores.variances` (per report and measure, the independent error: one function per
variance, checked against the measure registry at import), :mod:`judges.scores.labelled` (PPI and
the labels' draws), :mod:`judges.scores.trust` (the session's rows), and
:mod:`judges.scores.nugget_intervals`; the files in :mod:`judges.formats.intervals`. This module
gathers their public names, the ones code outside :mod:`judges.scores` imports.
"""

from __future__ import annotations

from judges.formats.intervals import (
    INTERVAL_COLUMNS,
    INTERVAL_SCHEMA,
    NUGGET_SPREADS,
    PAIR_COLUMNS,
    PAIR_SCHEMA,
    SHIPPED_SPREADS,
    read_intervals,
    read_pairs,
    write_parquet,
    write_tsv,
)
from judges.formats.intervals import write_intervals
from judges.scores.labelled import (
    Draws,
    Estimate,
    drawn_probabilities,
    label_draws,
    labelled_estimate,
    ppi_mean_ci,
    regime_update,
    shared_posterior,
    sure_bias,
)
from judges.scores.levels import LEVEL_OF_LABEL, UNKNOWN, capped_levels, level_distribution, weight_variances
from judges.scores.nugget_intervals import (
    NUGGET_ALL,
    NUGGET_F1,
    NUGGET_LEVEL,
    NUGGET_STRICT,
    NuggetDraws,
    f1_gradient,
    fit_regime,
    nugget_draws,
    nugget_levels,
    nugget_pair_variances,
    nugget_report_variances,
    nugget_spreads,
    nugget_trust,
)
from judges.scores.reml import (
    GAMMAS,
    GRID_MAX,
    GRID_STEP,
    PROFILE_DROP,
    RUN_COVARIATES,
    fit_run_scale,
    fit_spreads,
    report_residuals,
    restricted_likelihood,
    run_scale,
    run_values,
)
from judges.scores.spreads import (
    INDEPENDENT,
    REGIME_SD,
    Z95,
    Spreads,
    interval,
    judge_variance,
    p_same_order,
    regime_part,
    session_spreads,
    topic_variance,
)
from judges.scores.trust import Trust, inseparable, trust
from judges.scores.variances import MODELLED, MODELLED_VARIANCES, NO_JUDGE_ERROR, report_variances


def write_trust(found: Trust, out_dir, name: str, place=lambda p: p) -> dict:
    """Write ``NAME.intervals.tsv``/``.parquet`` and ``NAME.pairs.tsv``/``.parquet``
    (:func:`judges.formats.intervals.write_intervals`); returns kind -> path."""
    return write_intervals(found.intervals, found.pairs, out_dir, name, place)


__all__ = [
    "INTERVAL_COLUMNS",
    "INTERVAL_SCHEMA",
    "NUGGET_SPREADS",
    "PAIR_COLUMNS",
    "PAIR_SCHEMA",
    "SHIPPED_SPREADS",
    "read_intervals",
    "read_pairs",
    "write_parquet",
    "write_tsv",
    "write_intervals",
    "write_trust",
    "Draws",
    "Estimate",
    "drawn_probabilities",
    "label_draws",
    "labelled_estimate",
    "ppi_mean_ci",
    "regime_update",
    "shared_posterior",
    "sure_bias",
    "LEVEL_OF_LABEL",
    "UNKNOWN",
    "capped_levels",
    "level_distribution",
    "weight_variances",
    "NUGGET_ALL",
    "NUGGET_F1",
    "NUGGET_LEVEL",
    "NUGGET_STRICT",
    "NuggetDraws",
    "f1_gradient",
    "fit_regime",
    "nugget_draws",
    "nugget_levels",
    "nugget_pair_variances",
    "nugget_report_variances",
    "nugget_spreads",
    "nugget_trust",
    "GAMMAS",
    "GRID_MAX",
    "GRID_STEP",
    "PROFILE_DROP",
    "RUN_COVARIATES",
    "fit_run_scale",
    "fit_spreads",
    "report_residuals",
    "restricted_likelihood",
    "run_scale",
    "run_values",
    "INDEPENDENT",
    "REGIME_SD",
    "Z95",
    "Spreads",
    "interval",
    "judge_variance",
    "p_same_order",
    "regime_part",
    "session_spreads",
    "topic_variance",
    "Trust",
    "inseparable",
    "trust",
    "MODELLED",
    "MODELLED_VARIANCES",
    "NO_JUDGE_ERROR",
    "report_variances",
]
