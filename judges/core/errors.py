"""The one error type for bad user input: renders as ``path:line: field: problem``."""

from __future__ import annotations


def install_extra(extra: str) -> str:
    """How to install an optional extra (``attest``, ``dask``, ``autojudge``), as the README says:
    from the clone, ``pip install -e '.[EXTRA]'``."""
    return f"pip install -e '.[{extra}]'"


class InputError(Exception):
    """Bad input (run, topic, corpus or workflow file). Never shown with a traceback."""

    def __init__(self, path: object, line: int | None, field: str | None, problem: str):
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        super().__init__(self.render())

    def __reduce__(self):  # picklable across worker processes
        return (InputError, (self.path, self.line, self.field, self.problem))

    def render(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.field}: {self.problem}" if self.field else f"{where}: {self.problem}"


class UnreadableFile(InputError):
    """A file that cannot be read as what it should be: damaged, cut short, or of another kind (a
    Parquet table that is not one, or not citejudge's). ``judges.read_*`` raise it; the command
    line prints it as one line ``error: path: problem`` (exit code 2), as any :class:`InputError`."""

    def __init__(self, path: object, problem: str):
        super().__init__(path, None, None, problem)

    def __reduce__(self):
        return (UnreadableFile, (self.path, self.problem))
