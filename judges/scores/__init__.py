"""What the leaderboard says and how far to trust it: per-topic and ``all`` rows, intervals and pairs."""
