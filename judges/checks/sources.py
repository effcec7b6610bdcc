"""Sources prepared once for many look-ups, and the forms a caller may pass them in.

A :class:`Source` holds one document's searchable text (its title, if any, then its text) and
builds its number index and entity index the first time each is needed, so checking many
sentences against one document extracts that document once.

:func:`as_sources` accepts what RAG code has at hand: a string, a dict with a ``text`` key (and an
optional ``title``), any object with a ``.text`` attribute (and optional ``.title``, like
:class:`judges.core.records.Document`), a :class:`Source`, or a list or tuple of any of these.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from judges.checks.entities import EntityIndex
from judges.checks.numbers import NumberIndex


class Source:
    """One document, prepared lazily for numeric and entity look-ups."""

    __slots__ = ("text", "title", "_numbers", "_entities")

    def __init__(self, text: str, title: str = ""):
        if not isinstance(text, str):
            raise TypeError(f"source text must be a str, not {type(text).__name__}")
        self.text = text
        self.title = title or ""
        self._numbers: NumberIndex | None = None
        self._entities: EntityIndex | None = None

    @property
    def searchable(self) -> str:
        """What is searched: the title (when there is one) and the text."""
        return f"{self.title}\n{self.text}" if self.title else self.text

    @property
    def numbers(self) -> NumberIndex:
        if self._numbers is None:
            self._numbers = NumberIndex.of_text(self.searchable)
        return self._numbers

    @property
    def entities(self) -> EntityIndex:
        if self._entities is None:
            self._entities = EntityIndex(self.searchable)
        return self._entities

    def __repr__(self) -> str:
        head = self.text[:40] + ("..." if len(self.text) > 40 else "")
        return f"Source({head!r}, title={self.title!r})"


def as_source(item: Any, position: int = 0) -> Source:
    """One source from a str, a dict with ``text``, an object with ``.text``, or a Source."""
    if isinstance(item, Source):
        return item
    if isinstance(item, str):
        return Source(item)
    if isinstance(item, dict):
        if "text" not in item:
            raise ValueError(f"source {position}: dict has no 'text' key (keys: {sorted(item)})")
        return Source(_str(item["text"], position, "text"), _str(item.get("title") or "", position, "title"))
    if hasattr(item, "text"):
        return Source(_str(item.text, position, "text"), _str(getattr(item, "title", "") or "", position, "title"))
    raise TypeError(
        f"source {position}: expected str, dict with 'text', or an object with .text; got {type(item).__name__}"
    )


def as_sources(sources: Any) -> list[Source]:
    """A list of sources from one source or a list/tuple of them (see the module notes)."""
    if isinstance(sources, (str, dict, Source)) or hasattr(sources, "text"):
        return [as_source(sources)]
    if isinstance(sources, (list, tuple)):
        return [as_source(item, i) for i, item in enumerate(sources)]
    if isinstance(sources, Iterable):
        return [as_source(item, i) for i, item in enumerate(list(sources))]
    raise TypeError(f"sources: expected a source or a list of sources, got {type(sources).__name__}")


def _str(value: Any, position: int, field: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"source {position}: {field} must be a str, not {type(value).__name__}")
    return value
