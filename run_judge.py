#!/usr/bin/env python3
"""Entry point: ``python run_judge.py --judge citation --rag-topics ... --rag-responses ...``."""

import signal

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # held, not lost, until judges.startup handles it

from judges.startup import main  # noqa: E402

if __name__ == "__main__":
    main()
