"""Judging support: from an aligned (sentence, cited document) pair to a status.

* :mod:`judges.support.lexicon` -- stems and stopwords per vocabulary id (what "the same word" means);
* :mod:`judges.support.features` -- the support features (specification and readable reference),
  computed in batch by :mod:`judges.support.kernel`;
* :mod:`judges.support.model` -- the logistic support model: features -> P(at least partial),
  P(full); fitted by ``run_judge.py calibrate``, shipped in ``judges/support/models/``;
* :mod:`judges.support.judges` -- the judges of support behind one interface, by name
  (``alignment`` thresholds, ``model`` probabilities).
"""
