"""``python -m judges``: the same command line as ``run_judge.py`` and ``citejudge``."""

from judges.startup import main

main()
