"""Writing nugget banks (``create-nuggets``), in the shapes :mod:`judges.formats.nuggets` reads, so that
an assessor can edit a made bank and hand it back with ``--nuggets``:

* ``nist``: NIST's / nuggetizer's ``nuggets.jsonl``, one line per topic ``{qid, query, nuggets:
  [{text, importance}]}``; a made bank adds the record's ``made`` (source, ``min_runs``,
  ``vital_runs``, ``content_sha256``) and each nugget's ``stated_by`` (the runs that state it),
  ``text_from`` (the run its wording is from) and ``alternate`` (another run's wording), which
  NIST's and nuggetizer's readers ignore;
* ``autojudge``: autojudge-base's ``NuggetBanks`` container ``{format_version: v3, banks: {qid:
  {query_id, title_query, claim_bank: [{claim, query_id, importance, metadata}], metadata}}}``,
  the made bank's record in the ``metadata`` (``extra`` keys autojudge-base keeps).

Byte-identical for the same banks: keys in a fixed order, topics sorted, no date.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from judges.formats.atomic import atomic_text
from judges.formats.nuggets import NuggetBank

SHAPES = ("nist", "autojudge")


def _made(bank: NuggetBank) -> dict:
    m = bank.made
    if m is None:
        return {}
    return {
        "source": m.source,
        "min_runs": m.min_runs,
        "vital_runs": m.vital_runs,
        "content_sha256": m.content_sha256,
    }


def _nugget_extra(bank: NuggetBank, i: int) -> dict:
    m = bank.made
    if m is None or i >= len(m.stated_by):
        return {}
    return {"stated_by": list(m.stated_by[i]), "text_from": m.text_from[i], "alternate": m.alternates[i]}


def nist_record(bank: NuggetBank) -> dict:
    record: dict = {"qid": bank.qid, "query": bank.query}
    if bank.made is not None:
        record["made"] = _made(bank)
    record["nuggets"] = [
        {"text": n.text, "importance": n.importance, **_nugget_extra(bank, i)} for i, n in enumerate(bank.nuggets)
    ]
    return record


def autojudge_bank(bank: NuggetBank) -> dict:
    claims = []
    for i, n in enumerate(bank.nuggets):
        claim: dict = {"claim": n.text, "query_id": bank.qid, "importance": n.importance}
        extra = _nugget_extra(bank, i)
        if extra:
            claim["metadata"] = extra
        claims.append(claim)
    out: dict = {"query_id": bank.qid, "title_query": bank.query, "format_version": "v3", "claim_bank": claims}
    if bank.made is not None:
        out["metadata"] = {"made": _made(bank)}
    return out


def bank_text(banks: Iterable[NuggetBank], shape: str = "nist") -> str:
    """The file's text: ``nist`` one JSON line per topic, ``autojudge`` one container object."""
    ordered = sorted(banks, key=lambda b: b.qid)
    if shape == "nist":
        return "".join(json.dumps(nist_record(b), ensure_ascii=False) + "\n" for b in ordered)
    if shape == "autojudge":
        container = {"format_version": "v3", "banks": {b.qid: autojudge_bank(b) for b in ordered}}
        return json.dumps(container, ensure_ascii=False, indent=1) + "\n"
    raise ValueError(f"unknown bank shape {shape!r}: {', '.join(SHAPES)}")


def write_banks(path: Path, banks: Iterable[NuggetBank], shape: str = "nist") -> None:
    """Write ``banks`` to ``path`` atomically (see the module doc)."""
    text = bank_text(banks, shape)
    with atomic_text(Path(path)) as f:
        f.write(text)
