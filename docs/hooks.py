"""The manual's generated parts: mkdocs runs this hook (``hooks:`` in mkdocs.yml) on every page, and a
``<!-- generate: NAME -->`` line is replaced by the Markdown that ``NAME``'s function below writes from
the code itself (the typer app, the measure registry, the table of output files and the Arrow schemas,
the workflow's pydantic models, ``judges.__all__``, the floors of tests/test_layers.py, pyproject's
extras), so that the reference cannot drift from what the program does."""

from __future__ import annotations

import ast
import re
import tomllib
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- generate: ([\w-]+) -->$", re.M)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# -- the command line ---------------------------------------------------------------------------------
def _command_section(command, path: list[str], depth: int, parent=None) -> list[str]:
    ctx = command.context_class(command, info_name=" ".join(path) or "run_judge.py", parent=parent)
    lines = [f"{'#' * depth} `{' '.join(path)}`" if path else f"{'#' * depth} Judging (no command)", ""]
    help_text = (command.help or command.short_help or "").strip()
    if help_text:
        lines += [" ".join(help_text.split()), ""]
    pieces = " ".join(piece for p in command.params for piece in p.get_usage_pieces(ctx))
    lines += [f"Usage: `run_judge.py {' '.join([*path, '[OPTIONS]', pieces]).strip()}`", ""]
    records = [p.get_help_record(ctx) for p in command.params if not getattr(p, "hidden", False)]
    records = [r for r in records if r]
    if records:
        lines += ["| option or argument | what it does |", "|---|---|"]
        lines += [f"| `{_cell(names)}` | {_cell(' '.join(what.split()))} |" for names, what in records]
        lines.append("")
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            lines += _command_section(sub, [*path, name], min(depth + 1 if path else 2, 4), ctx)
    return lines


def cli() -> str:
    import typer

    from judges.cli.app import app

    root = typer.main.get_command(app)
    names = ", ".join(f"[`{n}`](#{_anchor(n)})" for n in root.commands)
    lines = [f"Commands: {names}.", ""]
    lines += _command_section(root, [], 2)
    return "\n".join(lines)


def _anchor(name: str) -> str:
    return re.sub(r"[^\w\- ]", "", name.lower()).strip().replace(" ", "-")


# -- the measures --------------------------------------------------------------------------------------
def measures() -> str:
    from judges.core.measures import LEVELS, REGISTRY, VARIANCES, markdown_table

    lines = [
        "### The citation judge's measures",
        "",
        markdown_table(),
        "",
        "### Every fact of every measure",
        "",
        "Level: what the measure averages over (" + ", ".join(LEVELS) + "); the intervals take the judge's error "
        "as said in the column *judge's error*; *discovered*: whether it says something of an answer whose "
        "citations were discovered (`check_answer` without citations).",
        "",
        "| measure | level | range | judge's error | discovered | definition |",
        "|---|---|---|---|---|---|",
    ]
    for m in REGISTRY.values():
        high = "unbounded" if m.high == float("inf") else f"0 to {m.high:g}"
        error = VARIANCES[m.variance]
        lines.append(
            f"| `{m.name}` | {m.level} | {high} | {_cell(error)} | {'yes' if m.discovered else 'no'} | "
            f"{_cell(m.description)} |"
        )
    return "\n".join(lines)


# -- the output files ----------------------------------------------------------------------------------
def _schema_comments(path: Path) -> dict[str, str]:
    """The comment beside each column of a schema written as ``("name", pa.type()),  # comment``."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        hit = re.match(r'\s*\("(\w+)", pa\.[^#]*#\s*(.+)$', line)
        if hit:
            found[hit.group(1)] = hit.group(2).strip()
    return found


def _schema_table(schema, comments: dict[str, str]) -> list[str]:
    lines = ["| column | Arrow type | what it holds |", "|---|---|---|"]
    for field in schema:
        lines.append(f"| `{field.name}` | `{_cell(field.type)}` | {_cell(comments.get(field.name, ''))} |")
    return lines


def output_files() -> str:
    from judges.formats import outputset, tables
    from judges.scores import intervals
    from judges.session import nuggets

    lines = [
        "| file | kind | format | written by | what | where |",
        "|---|---|---|---|---|---|",
    ]
    for f in outputset.FILES:
        where = "beside the set" if f.beside else ("with " + f.pair_kind + " pairs" if f.pair_kind else "the set")
        lines.append(
            f"| `NAME.{f.suffix}` | `{f.kind}` | {_cell(f.format)} | `{f.writer}` | {_cell(f.what)} | {where} |"
        )
    schemas = [
        ("NAME.assessments.parquet", tables.ASSESSMENT_SCHEMA, ROOT / "judges" / "formats" / "tables.py"),
        ("NAME.leaderboard.parquet", tables.LEADERBOARD_SCHEMA, None),
        ("NAME.intervals.tsv, NAME.intervals.parquet", intervals.INTERVAL_SCHEMA, None),
        ("NAME.pairs.tsv, NAME.pairs.parquet", intervals.PAIR_SCHEMA, None),
        ("NAME.nuggets.parquet", nuggets.SCHEMA, None),
    ]
    lines += ["", "### Columns", ""]
    lines += [
        "The Arrow schemas the tables are written with (the TSV files have the same columns, in this order). "
        "`f_*` columns are the model's features, by name.",
        "",
    ]
    for title, schema, source in schemas:
        comments = _schema_comments(source) if source else {}
        lines += [f"#### {title}", "", *_schema_table(schema, comments), ""]
    return "\n".join(lines)


# -- the workflow keys ---------------------------------------------------------------------------------
def _type_name(annotation) -> str:
    text = repr(annotation) if not isinstance(annotation, type) else annotation.__name__
    text = re.sub(r"typing\.|pydantic\.|judges\.core\.config\.", "", text)
    text = text.replace("NoneType", "None")
    return text


def _constraints(field) -> str:
    said = []
    for meta in field.metadata:
        for op, sign in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            value = getattr(meta, op, None)
            if value is not None:
                said.append(f"{sign} {value}")
    return ", ".join(said)


def workflow() -> str:
    from pydantic import BaseModel

    from judges.core.config import Workflow

    lines = []
    for name, field in Workflow.model_fields.items():
        model = field.annotation
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            lines += [f"`{name}`: `{_type_name(field.annotation)}`, default `{field.default}`.", ""]
            continue
        lines += [f"## `{name}`", ""]
        doc = (model.__doc__ or "").strip()
        if doc:
            lines += [" ".join(doc.split()), ""]
        lines += ["| key | type | default | bounds | what it sets |", "|---|---|---|---|---|"]
        for key, sub in model.model_fields.items():
            default = sub.default if sub.default_factory is None else sub.default_factory()
            lines.append(
                f"| `{name}.{key}` | `{_cell(_type_name(sub.annotation))}` | `{_cell(default)}` | "
                f"{_constraints(sub)} | {_cell(sub.description or '')} |"
            )
        lines.append("")
    return "\n".join(lines)


# -- the Python API ------------------------------------------------------------------------------------
def api() -> str:
    import judges

    lines = []
    for name in judges.__all__:
        obj = getattr(judges, name)
        lines += [f"## `judges.{name}`", ""]
        if isinstance(obj, str):
            lines += [f"The version, a string (`{obj}` as this manual was built).", ""]
            continue
        target = f"{obj.__module__}.{obj.__qualname__}"
        lines += [f"Defined as `{target}`.", "", f"::: {target}", "    options:", "      show_root_heading: true", ""]
    return "\n".join(lines)


# -- the floors ----------------------------------------------------------------------------------------
def floors() -> str:
    source = (ROOT / "tests" / "test_layers.py").read_text(encoding="utf-8")
    lines = ["| floor | packages and modules | what lives there |", "|---:|---|---|"]
    for line in source.splitlines():
        hit = re.match(r"\s*(\{[^}]*\}),\s*#\s*(.+)$", line)
        if hit and "judges" in hit.group(1):
            roots = sorted(ast.literal_eval(hit.group(1)))
            lines.append(f"| {len(lines) - 1} | {', '.join(f'`{r}`' for r in roots)} | {_cell(hit.group(2))} |")
    return "\n".join(lines)


# -- the extras ----------------------------------------------------------------------------------------
def extras() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = tomllib.loads(text)["project"]["optional-dependencies"]
    section = text.split("[project.optional-dependencies]")[1].split("\n[")[0]
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in section.splitlines():
        if line.startswith("#"):
            pending.append(line.lstrip("# ").strip())
        elif "=" in line:
            comments[line.split("=")[0].strip()] = " ".join(pending)
            pending = []
    lines = ["| extra | install | brings | what for |", "|---|---|---|---|"]
    for name, requirements in declared.items():
        brings = ", ".join(f"`{r}`" for r in requirements)
        lines.append(f"| `{name}` | `pip install -e '.[{name}]'` | {brings} | {_cell(comments.get(name, ''))} |")
    return "\n".join(lines)


# -- the test command ----------------------------------------------------------------------------------
def test_command() -> str:
    """The command ``.ci/run`` runs (its last line), which the README shows."""
    return "```bash\n" + (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1] + "\n```"


GENERATORS: dict[str, typing.Callable[[], str]] = {
    "cli": cli,
    "measures": measures,
    "output-files": output_files,
    "workflow": workflow,
    "api": api,
    "floors": floors,
    "extras": extras,
    "test-command": test_command,
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    return MARKER.sub(lambda hit: GENERATORS[hit.group(1)](), markdown)


SPHINX_ROLE = re.compile(r":(?:func|mod|class|data|meth|attr|exc|obj):(?=<code>)")


def on_page_content(html: str, page, config, files) -> str:
    """The docstrings' Sphinx roles (``:func:`name```) shown as the name alone."""
    return SPHINX_ROLE.sub("", html)
