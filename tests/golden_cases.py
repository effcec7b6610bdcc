"""The golden-file cases: one CLI run per bundled track, and how outputs are compared.

Regenerate after an intended change with ``python tests/golden_cases.py`` and read the diff.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import yaml

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

TRACKS: dict[str, list[str]] = {
    "rag25": [
        "--rag-topics",
        "datasets/rag25/topics.jsonl",
        "--rag-responses",
        "runs/rag25",
        "--corpus",
        "datasets/rag25/corpus.jsonl",
        "--workflow",
        "workflows/citation.yml",
        "--leaderboard-format",
        "tot",
        "--leaderboard-format",
        "jsonl",
    ],
    "ragtime": [
        "--rag-topics",
        "datasets/ragtime/topics.jsonl",
        "--rag-responses",
        "runs/ragtime",
        "--workflow",
        "workflows/citation.yml",
        "--dataset",
        "ragtime",
    ],
    "dragun": [
        "--rag-topics",
        "datasets/dragun/topics.jsonl",
        "--rag-responses",
        "runs/dragun",
        "--workflow",
        "workflows/rag26.yml",
    ],
}


def judge_track(track: str, out_dir: Path, backend: str = "python", *extra: str) -> subprocess.CompletedProcess:
    """The golden track ``track`` judged into ``out_dir`` (:func:`helpers.judge_cli`)."""
    from helpers import judge_cli

    return judge_cli(
        "--judge", "citation", *TRACKS[track], "--backend", backend, *extra, out=out_dir, name=track, ok=False
    )


def _rows(path: Path) -> str:
    def clean(v):
        return round(v, 9) if isinstance(v, float) and math.isfinite(v) else v

    rows = pq.read_table(path).to_pylist()
    return "".join(json.dumps({k: clean(v) for k, v in r.items()}, ensure_ascii=False) + "\n" for r in rows)


def normalized_outputs(out_dir: Path, name: str) -> dict[str, str]:
    """Every output as comparable text: Parquet as JSONL rows, config without versions, log without times."""
    files: dict[str, str] = {}
    for path in sorted(Path(out_dir).iterdir()):
        if not path.name.startswith(name + "."):
            continue
        kind = path.name[len(name) + 1 :]
        if kind.endswith(".parquet"):
            files[kind + ".jsonl"] = _rows(path)
        elif kind == "config.yml":
            config = yaml.safe_load(path.read_text(encoding="utf-8"))
            config.pop("versions")
            text = yaml.safe_dump(config, sort_keys=True, allow_unicode=True)
            files[kind] = text.replace(ROOT.as_posix() + "/", "")  # input paths are recorded absolute
        elif kind == "sha256":  # the set's record: the sha256 of these files (the config's absolute paths)
            continue
        elif kind == "jsonl":  # the debug log
            events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            for e in events:
                e.pop("ts")
                e.pop("version", None)
            text = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in events)
            files["debug.jsonl"] = text.replace(str(out_dir), "OUT_DIR")
        else:
            files[kind] = path.read_text(encoding="utf-8")
    return files


def regenerate() -> None:
    import tempfile

    for track in TRACKS:
        with tempfile.TemporaryDirectory() as tmp:
            result = judge_track(track, Path(tmp))
            if result.returncode != 0:
                raise SystemExit(f"{track}: judge failed:\n{result.stderr}")
            target = GOLDEN / track
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            for kind, text in normalized_outputs(Path(tmp), track).items():
                (target / kind).write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    regenerate()
