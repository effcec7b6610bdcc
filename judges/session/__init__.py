"""A judging session: its inputs, the scan of the runs, the stages, workers, shards, the cluster, the writer."""
