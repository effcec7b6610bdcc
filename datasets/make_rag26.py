"""Write the TREC RAG 2026-shaped sample: ``datasets/rag26/`` (topics, a small ClimbMix-style corpus,
a nugget bank) and ``runs/rag26/`` (three runs). Run from the project root::

    python datasets/make_rag26.py

All text is original sample text written for citejudge (MIT), general knowledge in our own words;
the doc ids imitate ClimbMix's (``shard_00459_61697``). Re-running it rewrites every file
byte-identically. The runs differ on purpose, for battles (``--judge battle``):

* ``teamA-grounded``: sentences taken from the cited documents, the topic's nuggets covered;
* ``teamB-partial``: fewer nuggets, one claim its document does not make;
* ``teamC-loose``: claims its documents do not make, and the RAG 2026 rules broken once each: a
  sentence with four citations, a reference never cited, an answer of more than 1,024 words.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOPICS = [
    ("rag26-01", "How does a solar panel turn sunlight into electricity, and why does its output drop on hot days?"),
    ("rag26-02", "Why do the leaves of many trees turn yellow and red in autumn?"),
    ("rag26-03", "How does a household refrigerator keep food cold?"),
]

DOCS = {
    "shard_00459_61697": (
        "Solar cells",
        "A solar panel is made of many solar cells, thin wafers of silicon. When sunlight strikes a cell, its "
        "photons knock electrons loose from the silicon atoms. An electric field built into the cell at the "
        "junction between two layers of silicon pushes the freed electrons in one direction, and this flow of "
        "electrons is a direct current. An inverter turns the direct current into the alternating current used "
        "in homes. A typical panel converts about 20 percent of the sunlight that reaches it into electricity.",
    ),
    "shard_00459_70112": (
        "Heat and solar output",
        "Solar panels work best when they are cool. As the temperature of a silicon cell rises, its voltage "
        "falls, so a hot panel produces less power than a cool one in the same sunlight. For common silicon "
        "panels the output drops by roughly 0.4 percent for every degree Celsius above 25 degrees. Mounting "
        "panels with a gap of air behind them helps them shed heat.",
    ),
    "shard_01203_00458": (
        "Autumn leaves",
        "Leaves are green in summer because they are full of chlorophyll, the pigment that captures light for "
        "photosynthesis. As the days shorten in autumn, trees stop making chlorophyll and break down what is "
        "left. Yellow and orange pigments called carotenoids, present in the leaf all summer, then become "
        "visible. Red colours come from anthocyanins, which many trees produce fresh in autumn from sugars "
        "trapped in the leaf.",
    ),
    "shard_01203_09921": (
        "Weather and autumn colour",
        "The brightest red autumn colours follow sunny days and cool nights. Sunny days let leaves make plenty "
        "of sugar, and cool nights keep the sugar in the leaf, where it is turned into anthocyanins. A layer "
        "of cells at the base of the leaf stalk slowly seals the leaf off before it falls.",
    ),
    "shard_02871_33310": (
        "How refrigerators work",
        "A refrigerator moves heat from inside the cabinet to the room. A liquid refrigerant flows through "
        "coils inside the cabinet, where it evaporates and absorbs heat from the food and the air. A "
        "compressor then squeezes the refrigerant vapour, which raises its temperature, and pumps it to coils "
        "at the back of the fridge. There the vapour gives off its heat to the room and condenses into a "
        "liquid again.",
    ),
    "shard_02871_40007": (
        "Refrigerator thermostat",
        "A thermostat measures the temperature inside the fridge and switches the compressor on when the "
        "cabinet gets too warm and off when it is cold enough. Most food is kept at about 4 degrees Celsius.",
    ),
}

NUGGETS = {
    "rag26-01": [
        ("Photons knock electrons loose in the silicon cells", "vital"),
        ("An electric field in the cell drives the electrons as direct current", "vital"),
        ("An inverter turns direct current into alternating current", "okay"),
        ("A hotter cell has a lower voltage and produces less power", "vital"),
        ("Output drops about 0.4 percent per degree above 25 degrees Celsius", "okay"),
    ],
    "rag26-02": [
        ("Trees stop making chlorophyll in autumn", "vital"),
        ("Carotenoids make leaves yellow and orange", "vital"),
        ("Anthocyanins made in autumn make leaves red", "vital"),
        ("Sunny days and cool nights give brighter reds", "okay"),
    ],
    "rag26-03": [
        ("The refrigerant evaporates inside and absorbs heat", "vital"),
        ("The compressor raises the pressure and temperature of the vapour", "vital"),
        ("Coils at the back release heat to the room", "vital"),
        ("A thermostat switches the compressor on and off", "okay"),
    ],
}

S = "shard_00459_61697", "shard_00459_70112", "shard_01203_00458", "shard_01203_09921"
F = "shard_02871_33310", "shard_02871_40007"

GOOD = {
    "rag26-01": (
        [S[0], S[1]],
        [
            ("When sunlight strikes a cell, its photons knock electrons loose from the silicon atoms.", [0]),
            (
                "An electric field built into the cell pushes the freed electrons in one direction, and this "
                "flow of electrons is a direct current.",
                [0],
            ),
            ("An inverter turns the direct current into the alternating current used in homes.", [0]),
            (
                "As the temperature of a silicon cell rises, its voltage falls, so a hot panel produces less "
                "power than a cool one in the same sunlight.",
                [1],
            ),
            (
                "For common silicon panels the output drops by roughly 0.4 percent for every degree Celsius "
                "above 25 degrees.",
                [1],
            ),
        ],
    ),
    "rag26-02": (
        [S[2], S[3]],
        [
            ("As the days shorten in autumn, trees stop making chlorophyll and break down what is left.", [0]),
            ("Yellow and orange pigments called carotenoids then become visible.", [0]),
            ("Red colours come from anthocyanins, which many trees produce fresh in autumn.", [0]),
            ("The brightest red autumn colours follow sunny days and cool nights.", [1]),
        ],
    ),
    "rag26-03": (
        [F[0], F[1]],
        [
            ("A refrigerator moves heat from inside the cabinet to the room.", [0]),
            (
                "A liquid refrigerant flows through coils inside the cabinet, where it evaporates and absorbs "
                "heat from the food and the air.",
                [0],
            ),
            ("A compressor squeezes the refrigerant vapour, which raises its temperature.", [0]),
            ("At the coils at the back the vapour gives off its heat to the room and condenses.", [0]),
            ("A thermostat switches the compressor on when the cabinet gets too warm.", [1]),
        ],
    ),
}

PARTIAL = {
    "rag26-01": (
        [S[0]],
        [
            ("Sunlight knocks electrons loose in the silicon of a solar cell.", [0]),
            ("Hot panels are more efficient because heat speeds up the electrons.", [0]),
        ],
    ),
    "rag26-02": (
        [S[2]],
        [
            ("In autumn trees stop making the green pigment chlorophyll.", [0]),
            ("The yellow carotenoids were in the leaf all summer and now show.", [0]),
        ],
    ),
    "rag26-03": (
        [F[0]],
        [
            ("Inside the fridge a refrigerant evaporates and takes up heat.", [0]),
            ("The fridge creates cold air with a small electric heater running in reverse.", [0]),
        ],
    ),
}

FILLER = (
    "Many people are interested in this question and there are many opinions about it, some of them old "
    "and some of them new, and the discussion is likely to continue for a long time."
)

LOOSE = {
    "rag26-01": (
        [S[0], S[1], F[0], F[1]],
        [
            ("Solar panels make electricity from the heat of the sun, like a kettle.", [0, 1, 2, 3]),
            ("They work best in the hottest weather.", [1]),
        ],
    ),
    "rag26-02": (
        [S[2], S[3], F[1]],  # F[1] is never cited
        [
            ("Leaves turn red because the cold freezes their water.", [0]),
            ("Trees paint their leaves to warn insects.", [1]),
        ],
    ),
    "rag26-03": (
        [F[0]],
        [("A refrigerator uses a coolant to move heat out of the cabinet.", [0])] + [(FILLER, [0])] * 30,
    ),
}

RUNS = [
    ("teamA", "teamA-grounded", "sentences from the cited documents", GOOD),
    ("teamB", "teamB-partial", "short answers, one unsupported claim", PARTIAL),
    ("teamC", "teamC-loose", "unsupported claims; breaks the RAG 2026 rules", LOOSE),
]


def dump(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def main() -> None:
    data, runs = ROOT / "datasets" / "rag26", ROOT / "runs" / "rag26"
    narratives = dict(TOPICS)
    dump(data / "topics.jsonl", [{"id": t, "narrative": n} for t, n in TOPICS])
    dump(data / "corpus.jsonl", [{"doc_id": d, "title": title, "text": text} for d, (title, text) in DOCS.items()])
    dump(
        data / "nuggets.jsonl",
        [
            {"qid": t, "query": narratives[t], "nuggets": [{"text": x, "importance": i} for x, i in NUGGETS[t]]}
            for t, _ in TOPICS
        ],
    )
    for team, run, desc, answers in RUNS:
        records = []
        for topic, _ in TOPICS:
            refs, sentences = answers[topic]
            records.append(
                {
                    "metadata": {
                        "team_id": team,
                        "run_id": run,
                        "narrative_id": topic,
                        "narrative": narratives[topic],
                        "run_desc": desc,
                    },
                    "references": list(refs),
                    "answer": [{"text": text, "citations": list(c)} for text, c in sentences],
                }
            )
        dump(runs / f"{run}.jsonl", records)


if __name__ == "__main__":
    main()
