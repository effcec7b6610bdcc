"""Nugget judgments: (nugget, answer) pairs judged with the citation judge's kernel."""
