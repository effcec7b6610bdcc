"""Which writing system a text is in: the cheap test that tells a cross-language citation.

NeuCLIR and RAGTIME reports are English while the cited documents are Chinese, Persian, Russian,
Arabic...: a lexical alignment cannot judge such a citation. A text's script is the Unicode script
of most of its letters (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic scripts, Thai,
Georgian, Hangul, CJK (Han and kana), ...), counted over its first ``MAX_CHARS`` characters in one
vectorised pass per batch of texts; a text with too few letters, or no script holding most of
them, has none (``NONE``) and is never called cross-language. Languages that share a script
(English and French) are not told apart.
"""

from __future__ import annotations

import numpy as np

MAX_CHARS = 1500  # characters of a text looked at
MIN_LETTERS = 8  # fewer letters: no script
MIN_SHARE = 0.6  # the script of a text holds at least this share of its letters

NONE = 0
NAMES = (
    "none",
    "Latin",
    "Greek",
    "Cyrillic",
    "Armenian",
    "Hebrew",
    "Arabic",
    "Devanagari",
    "Bengali",
    "Gurmukhi",
    "Gujarati",
    "Oriya",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Sinhala",
    "Thai",
    "Lao",
    "Tibetan",
    "Myanmar",
    "Georgian",
    "Hangul",
    "Ethiopic",
    "Khmer",
    "CJK",
)
_S = {name: i for i, name in enumerate(NAMES)}

# (first code point, last + 1, script) of letter ranges; everything else (digits, punctuation,
# symbols, spaces, combining marks outside these blocks) counts for no script.
_RANGES = (
    (0x41, 0x5B, "Latin"),
    (0x61, 0x7B, "Latin"),
    (0xC0, 0xD7, "Latin"),
    (0xD8, 0xF7, "Latin"),
    (0xF8, 0x250, "Latin"),
    (0x370, 0x400, "Greek"),
    (0x400, 0x530, "Cyrillic"),
    (0x530, 0x590, "Armenian"),
    (0x591, 0x600, "Hebrew"),
    (0x620, 0x64B, "Arabic"),
    (0x66E, 0x6D4, "Arabic"),
    (0x6FA, 0x700, "Arabic"),
    (0x750, 0x780, "Arabic"),
    (0x8A0, 0x900, "Arabic"),
    (0x900, 0x980, "Devanagari"),
    (0x980, 0xA00, "Bengali"),
    (0xA00, 0xA80, "Gurmukhi"),
    (0xA80, 0xB00, "Gujarati"),
    (0xB00, 0xB80, "Oriya"),
    (0xB80, 0xC00, "Tamil"),
    (0xC00, 0xC80, "Telugu"),
    (0xC80, 0xD00, "Kannada"),
    (0xD00, 0xD80, "Malayalam"),
    (0xD80, 0xE00, "Sinhala"),
    (0xE00, 0xE80, "Thai"),
    (0xE80, 0xF00, "Lao"),
    (0xF00, 0x1000, "Tibetan"),
    (0x1000, 0x10A0, "Myanmar"),
    (0x10A0, 0x1100, "Georgian"),
    (0x1100, 0x1200, "Hangul"),
    (0x1200, 0x1400, "Ethiopic"),
    (0x1780, 0x1800, "Khmer"),
    (0x1E00, 0x1F00, "Latin"),
    (0x1F00, 0x2000, "Greek"),
    (0x2C00, 0x2C60, "Cyrillic"),
    (0x2DE0, 0x2E00, "Cyrillic"),
    (0x3040, 0x3100, "CJK"),
    (0x3100, 0x3130, "CJK"),
    (0x3130, 0x3190, "Hangul"),
    (0x31A0, 0x3200, "CJK"),
    (0x3400, 0x4DC0, "CJK"),
    (0x4E00, 0xA000, "CJK"),
    (0xA640, 0xA6A0, "Cyrillic"),
    (0xAC00, 0xD7B0, "Hangul"),
    (0xF900, 0xFB00, "CJK"),
    (0xFB1D, 0xFB50, "Hebrew"),
    (0xFB50, 0xFDFE, "Arabic"),
    (0xFE70, 0xFEFF, "Arabic"),
    (0xFF21, 0xFF3B, "Latin"),
    (0xFF41, 0xFF5B, "Latin"),
    (0xFF66, 0xFFA0, "CJK"),
    (0xFFA0, 0xFFDD, "Hangul"),
    (0x20000, 0x32000, "CJK"),
)


def _table() -> np.ndarray:
    """Script id per code point below the last range's end (one uint8 lookup per character)."""
    lut = np.zeros(_RANGES[-1][1] + 1, dtype=np.uint8)
    for lo, hi, name in _RANGES:
        lut[lo:hi] = _S[name]
    return lut


_LUT = _table()


def scripts_of(texts: list[str]) -> np.ndarray:
    """The script id (index into ``NAMES``) of each text, ``NONE`` when it has no clear one."""
    n, k = len(texts), len(NAMES)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    heads = [t[:MAX_CHARS] for t in texts]
    cps = np.frombuffer("".join(heads).encode("utf-32-le"), dtype=np.uint32)
    owner = np.repeat(np.arange(n, dtype=np.int64), [len(t) for t in heads])
    script = _LUT[np.minimum(cps, len(_LUT) - 1)]
    counts = np.bincount(owner * k + script, minlength=n * k).reshape(n, k)
    counts[:, NONE] = 0
    letters = counts.sum(axis=1)
    best = counts.argmax(axis=1)
    top = counts[np.arange(n), best]
    clear = (letters >= MIN_LETTERS) & (top >= MIN_SHARE * np.maximum(letters, 1))
    return np.where(clear, best, NONE)


def script_name(script: int) -> str:
    return NAMES[script]
