"""The engine: judging a batch of pairs (a cited sentence and its document), grounding, weights, explanations."""
