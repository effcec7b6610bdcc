"""``python -m judges``: the same command line as ``run_judge.py`` and ``citejudge``."""

from judges.cli import run

run()
