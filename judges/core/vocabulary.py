"""The closed lists citejudge speaks in: a citation's statuses, their grades and weights, the
labels people give, and the colours the report shows them in. Every other module takes them from
here (this module imports nothing of the package), so a status added or renamed is added or
renamed once.
"""

from __future__ import annotations

#: Every status a citation can get, best first. ``cross_language``: sentence and cited text in
#: different scripts, not aligned (:mod:`judges.text.script`).
STATUSES = ("supported", "partial", "unsupported", "missing", "cross_language")
#: Every status but cross_language, which the CLI summary shows on a line of its own (only when it
#: occurs) and the HTML report's plots leave out.
MAIN_STATUSES = tuple(s for s in STATUSES if s != "cross_language")
#: A nugget pair's assignments, best first (NIST's words: the nugget is supported by the answer).
NUGGET_ASSIGNMENTS = ("support", "partial_support", "not_support")
#: A status's qrels grade, which is also its support level (2 full, 1 partial, 0 none).
STATUS_GRADE = dict(zip(STATUSES, (2, 1, 0, 0, 0)))
#: A status's weight in the TREC 2024 RAG support measures (full 1, partial 0.5, else 0).
WEIGHT = {"supported": 1.0, "partial": 0.5, "unsupported": 0.0, "missing": 0.0, "cross_language": 0.0}
#: Statuses by how good they are, for "the best citation of a sentence" (larger is better).
STATUS_RANK = {s: len(STATUSES) - i for i, s in enumerate(STATUSES)}

#: The labels people give (TREC 2024 RAG's full / partial / no support), in label files.
LABELS = ("supported", "partially", "not_supported")
#: What label files write for each label, besides the label itself: compared after stripping,
#: ignoring case, with spaces and hyphens as underscores (``Partially Supported`` is
#: ``partially_supported``); JSON integers as their digits. The levels 0/1/2 are TREC 2024 RAG's
#: (no / partial / full support); a file of binary 0/1 labels needs ``--label-map 1=supported``.
LABEL_SYNONYMS = {
    "supported": ("fully_supported", "full", "full_support", "fs", "2"),
    "partially": ("partially_supported", "partial", "partial_support", "ps", "1"),
    "not_supported": ("unsupported", "no_support", "none", "ns", "0"),
}
#: A label's support level (0/1/2), which is the grade of the status it stands for.
LABEL_LEVEL = {"not_supported": 0, "partially": 1, "supported": 2}
#: A label as the judge's status (the level it stands for).
LABEL_STATUS = {"supported": "supported", "partially": "partial", "not_supported": "unsupported"}
#: A status as the label it is compared with (a citation the judge could not read: no support), in STATUSES' order.
STATUS_LABEL = dict(zip(STATUSES, ("supported", "partially", "not_supported", "not_supported", "not_supported")))

#: The support features, in the order of the support model's weights and the assessments'
#: ``f_*`` columns (computed in :mod:`judges.support.features`).
FEATURES: tuple[str, ...] = (
    "norm_score",
    "answer_coverage",
    "content_recall",
    "bigram_recall",
    "clause_min_recall",
    "clause_max_recall",
    "log_answer_tokens",
    "numbers_missing",
    "entities_missing",
)

#: The leaderboard file formats read (``meta-evaluate``, ``report --truth``; :mod:`judges.formats.leaderboards`).
LEADERBOARD_READ_FORMATS = ("ir_measures", "tot", "trec_eval", "jsonl")

#: The styles of answer markers (:func:`judges.api.markers.annotate`): ``[1]``, superscript ``¹``, Markdown ``[^1]``.
MARKER_STYLES = ("brackets", "superscript", "footnote")

#: The alignment engines (``alignment.backend``, ``--backend``): the readable reference and the kernel.
BACKENDS = ("python", "numba")
#: The LLM's answers to each attestation question (``attest.question``).
ANSWERS: dict[str, tuple[str, ...]] = {"yes_no": ("YES", "NO"), "support_level": ("FULL", "PARTIAL", "NONE")}
#: The answers of the side-by-side question of two answers (judges.attest.sidebyside); with
#: :data:`ANSWERS`, every question's answers, as batch files name them (judges.attest.batch).
SIDE_BY_SIDE = ("FIRST", "SECOND", "TIE")
READINGS: dict[str, tuple[str, ...]] = {**ANSWERS, "side_by_side": SIDE_BY_SIDE}
#: ``support_level``: the status an answer names.
LEVEL_STATUS = {"FULL": "supported", "PARTIAL": "partial", "NONE": "unsupported"}

#: The report's colour of each status (plots, badges, buttons) and its light tint (table cells), in STATUSES' order.
STATUS_COLOUR = dict(zip(STATUSES, ("#2e7d32", "#c98a00", "#c62828", "#777777", "#5c6bc0")))
STATUS_TINT = dict(zip(STATUSES, ("#e3f1e4", "#fff1cc", "#fbe0e0", "#e6e6e6", "#e8eaf6")))

#: the field of a plan-assessments line: the probability its citation (or nugget pair) was drawn with
INCLUSION_PROBABILITY = "inclusion_probability"
#: the least inclusion probability a label line may give: a plan draws no citation less likely (one
#: among a billion), and the estimators weigh a label by its inverse (below, 1/p overflows to NaN)
MIN_INCLUSION_PROBABILITY = 1e-9
