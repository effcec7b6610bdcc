"""The ground floor: errors, records, the vocabulary, counts, the process set-up, the workflow model
and the measure registry. Imports nothing of the package above it."""
