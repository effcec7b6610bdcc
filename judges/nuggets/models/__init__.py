"""Shipped nugget models (JSON)."""
