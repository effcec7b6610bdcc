"""The library's entrances above the session: one answer judged in memory (answer), its markers
(markers), the AutoJudge adapter (autojudge)."""
