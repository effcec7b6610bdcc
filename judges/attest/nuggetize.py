"""A nugget bank made by an LLM, the way nuggetizer (castorini, AutoNuggetizer) makes one
(``create-nuggets --from llm``): per topic, the passages are read in windows (10 at a time); for each
window the model is handed the query, the window and the nuggets so far and replies with the updated
list (at most 30 nuggets, most important first, as a Python list of strings); then the final list is
labelled ``vital`` or ``okay`` in windows of 10 nuggets (a Python list of labels, one per nugget).

The questions go through the same endpoint and answer cache as the attestation questions
(:mod:`judges.attest.client`, :mod:`judges.attest.cache`: the key is the exact question asked, so a
second run asks nothing); who answers a question the cache lacks is an asker
(:data:`judges.attest.client.Asker`: online by default, :class:`judges.attest.replay.Replay` for
cache-only, :class:`judges.attest.batch.Recorder` for batch files: each topic's next question is
exported, its answers imported into the cache, and the next run goes one question further, until
every topic's bank is made). A reply that is no list, or a failed question, leaves the list as it was (creation) or
the nuggets ``okay`` (scoring), and is counted. The bank's source is ``llm:MODEL``.

With ``attest.max_cost`` (and prices) no question is asked that would take the estimated cost
past it (an error: no bank). The banks are checked for a degenerate LLM (:func:`degenerate`: the same
bank for every topic, no nugget at all, half the replies unparsed): an error unless told to use them.

The prompts follow nuggetizer's shape (roles, the iterative update, its caps and window sizes); the
wording is citejudge's own.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Optional

from judges.core import counts as keys
from judges.attest.batch import NOT_ASKED
from judges.attest.cache import AnswerCache, question_key
from judges.attest.client import Failure, Request, ask_all
from judges.attest.endpoint import Endpoint
from judges.formats.nuggets import OKAY, VITAL, MadeFrom, Nugget, NuggetBank, content_hash

CREATE_WINDOW = 10  # passages a creation question shows
SCORE_WINDOW = 10  # nuggets a scoring question labels
CAP = 30
PARAMS = {"temperature": 0.0, "max_tokens": 2048}
_LIST = re.compile(r"\[.*\]", re.DOTALL)

CREATE_SYSTEM = (
    "You are an assistant that maintains a list of atomic information nuggets: short facts that together "
    "give all the information a search query asks for."
)
SCORE_SYSTEM = "You are an assistant that labels information nuggets by how important they are to a search query."


def creation_messages(query: str, passages: list[str], nuggets: list[str], cap: int = CAP) -> list[dict]:
    context = "\n".join(f"[{i + 1}] {p}" for i, p in enumerate(passages))
    user = (
        f"Update the list of atomic nuggets (facts of 1-12 words) so that it best gives the information the "
        f"query asks for, using only the current list and the passages below (you will see more passages "
        f"later). Keep no redundant nugget, keep at most {cap} nuggets (the most important), most important "
        f"first.\n\nQuery: {query}\nPassages:\n{context}\nQuery: {query}\nCurrent list: {nuggets!r}\n"
        f"Current list length: {len(nuggets)}\n\nReply with the updated list only, as a Python list of strings "
        '["...", "..."], even if nothing changed.\nUpdated list:'
    )
    return [{"role": "system", "content": CREATE_SYSTEM}, {"role": "user", "content": user}]


def scoring_messages(query: str, nuggets: list[str]) -> list[dict]:
    user = (
        f"Label each of these {len(nuggets)} nuggets vital or okay for the query: vital when a good answer "
        "must state it, okay when it is worth stating but not essential. Reply with the labels only, as a "
        f"Python list of strings in the nuggets' order, one per nugget.\n\nQuery: {query}\nNuggets: {nuggets!r}\n"
        "Labels:"
    )
    return [{"role": "system", "content": SCORE_SYSTEM}, {"role": "user", "content": user}]


def parse_list(reply: str) -> Optional[list[str]]:
    """The Python (or JSON) list of strings in a reply, else ``None``."""
    found = _LIST.search(reply or "")
    if found is None:
        return None
    try:
        value = ast.literal_eval(found.group(0))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [" ".join(v.split()) for v in value if v.strip()]


class Pending(Exception):
    """A question recorded for a batch file (:class:`judges.attest.batch.Recorder`): the topic's bank
    waits for its answer."""


class OverBudget(Exception):
    """The next question would take the estimated cost past ``attest.max_cost``."""


def estimated_cost(messages: list[dict], settings) -> float:
    """What asking ``messages`` costs at most, before it is asked (``settings``:
    :class:`judges.core.config.AttestSettings`): the prompt at :data:`judges.attest.prompt.CHARS_PER_TOKEN`
    characters a token and the reply at its ``max_tokens`` cap, at the workflow's prices."""
    from judges.attest.prompt import CHARS_PER_TOKEN

    tokens_in = sum(len(m["content"]) for m in messages) / CHARS_PER_TOKEN
    return tokens_in / 1000 * settings.price_per_1k_input + PARAMS["max_tokens"] / 1000 * settings.price_per_1k_output


def degenerate(banks: dict[str, NuggetBank], counts: Counter) -> Optional[str]:
    """Why the LLM's banks say nothing, or ``None``: every topic's bank the same (3 topics or more),
    no nugget at all, or at least half of the replies not a list."""
    lists = [tuple(n.text for n in b.nuggets) for b in banks.values()]
    replies = counts[keys.BANK_ASKED] + counts[keys.BANK_CACHE_HITS]
    if len(lists) >= 3 and len(set(lists)) == 1:
        return f"the same {len(lists[0])} nuggets for every one of {len(lists)} topics"
    if lists and not any(lists):
        return f"no nugget for any of {len(lists)} topics"
    if replies and counts[keys.BANK_UNPARSED] * 2 >= replies:
        return f"{counts[keys.BANK_UNPARSED]} of {replies} replies not a list of the expected length"
    return None


class Asking:
    """One topic's questions, each answered from the cache or by the asker, then kept in the cache."""

    def __init__(
        self, endpoint: Endpoint, cache: AnswerCache, ask=None, counts: Optional[Counter] = None, settings=None
    ):
        self.endpoint, self.cache, self.settings = endpoint, cache, settings
        self.spent = 0.0  # the estimated cost of the questions asked (attest.max_cost)
        self.ask = ask or partial(ask_all, endpoint, concurrency=1, max_retries=3, timeout_s=120.0, backoff_s=1.0)
        self.counts = counts if counts is not None else Counter()

    def reply(self, messages: list[dict]) -> Optional[str]:
        key = question_key(self.endpoint.model, messages, PARAMS)
        cached = self.cache.get_many([key]).get(key)
        if cached is not None:
            self.counts[keys.BANK_CACHE_HITS] += 1
            return cached.reply
        if self.settings is not None and self.settings.max_cost is not None:
            cost = estimated_cost(messages, self.settings)
            if self.spent + cost > self.settings.max_cost:
                raise OverBudget(f"{self.spent:.4f} spent of attest.max_cost {self.settings.max_cost:g}")
            self.spent += cost
        got: dict = {}
        body = {"model": self.endpoint.model, "messages": messages, **PARAMS}
        self.ask([Request(key, body)], on_result=lambda request, result: got.update(result=result))
        result = got.get("result")
        if isinstance(result, Failure) and result.reason == NOT_ASKED:
            raise Pending(key)
        if result is None or isinstance(result, Failure):
            self.counts[keys.BANK_FAILED] += 1
            return None
        self.cache.put(key, self.endpoint.model, result)
        self.counts[keys.BANK_ASKED] += 1
        self.counts[keys.BANK_TOKENS_IN] += result.tokens_in
        self.counts[keys.BANK_TOKENS_OUT] += result.tokens_out
        return result.reply


def make_llm_bank(
    asking: Asking, qid: str, query: str, passages: list[str], cap: int = CAP, window: int = CREATE_WINDOW
) -> NuggetBank:
    """A topic's bank from ``passages`` (see the module doc)."""
    nuggets: list[str] = []
    for start in range(0, len(passages), window):
        updated = parse_list(
            asking.reply(creation_messages(query, passages[start : start + window], nuggets, cap)) or ""
        )
        if updated is None:
            asking.counts[keys.BANK_UNPARSED] += 1
            continue
        nuggets = list(dict.fromkeys(updated))[:cap]
    labels: list[str] = []
    for start in range(0, len(nuggets), SCORE_WINDOW):
        part = nuggets[start : start + SCORE_WINDOW]
        got = parse_list(asking.reply(scoring_messages(query, part)) or "")
        if got is None or len(got) != len(part):
            asking.counts[keys.BANK_UNPARSED] += 1
            got = [OKAY] * len(part)
        labels += [VITAL if g.strip().lower() == VITAL else OKAY for g in got]
    bank = NuggetBank(qid, query, tuple(Nugget(t, imp) for t, imp in zip(nuggets, labels)))
    return NuggetBank(
        qid, query, bank.nuggets, MadeFrom(f"llm:{asking.endpoint.model}", content_sha256=content_hash(bank))
    )


def make_llm_banks(
    endpoint: Endpoint,
    cache_dir: Path,
    passages: dict[str, list[str]],
    queries: dict[str, str],
    ask=None,
    cap: int = CAP,
    settings=None,
) -> tuple[dict[str, NuggetBank], Counter]:
    """Every topic's bank (``passages``: per topic, in the order to read them) and the counts
    (asked, cache hits, failed, unparsed, tokens; ``settings``: the workflow's ``attest``, whose
    ``max_cost`` stops the questions (:class:`OverBudget`) before their estimated cost passes it;
    ``pending_topics``: topics whose next question an
    asker recorded for a batch file, :class:`judges.attest.batch.Recorder`, and which have no bank yet)."""
    cache = AnswerCache(Path(cache_dir))
    counts: Counter = Counter()
    banks: dict[str, NuggetBank] = {}
    try:
        asking = Asking(endpoint, cache, ask, counts, settings)
        for t in sorted(passages):
            try:
                banks[t] = make_llm_bank(asking, t, queries.get(t, ""), passages[t], cap)
            except Pending:  # its next question went to a batch file: no bank yet
                counts[keys.BANK_PENDING_TOPICS] += 1
    finally:
        cache.close()
    return banks, counts
