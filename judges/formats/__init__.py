"""Wire formats: reading runs, topics and corpora; writing TREC files and Parquet tables."""
