"""Meta-evaluation: how well citejudge reproduces people.

* :mod:`judges.formats.leaderboards` reads leaderboards of every TREC format into one long table;
* :mod:`judges.meta.correlation` ranks runs alike or not (Kendall tau-b, Spearman, Pearson,
  tau_ap, Kendall@k);
* :mod:`judges.meta.bootstrap` gives confidence intervals by resampling topics;
* :mod:`judges.meta.metaeval` correlates judge leaderboards with a truth leaderboard;
* :mod:`judges.formats.labels` and :mod:`judges.meta.agreement` compare per-citation or per-sentence
  decisions with human labels;
* :mod:`judges.meta.convert` turns labelled claim/evidence sets into runs, topics and labels;
* :mod:`judges.cli.meta` is the ``meta-evaluate``, ``agreement``, ``convert-labelled``,
  ``calibrate`` (fit the support model to labels, :mod:`judges.meta.calibrate`) and
  ``plan-assessments`` commands, which :mod:`judges.cli.app` adds to the one command line.
"""
