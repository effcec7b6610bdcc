"""LLM attestation (Auto-ARGUE): which citations an LLM is asked about (selection, from the
session's plan), the question (prompt), the client and its cache, and how an answer becomes a
status and a weight (cascade, answers)."""
