#!/usr/bin/env python3
"""Entry point: ``python run_judge.py --judge citation --rag-topics ... --rag-responses ...``."""

from judges.cli import run

if __name__ == "__main__":
    run()
