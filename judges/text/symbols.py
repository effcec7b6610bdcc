"""Character sets that the tokenizer and the grounding checks share, written out once.

``CURRENCY_SYMBOLS`` is every character of Unicode general category Sc (currency symbol) as of
Unicode 14.0 (Python 3.11's ``unicodedata``), in code point order. Written out rather than
computed: computing it walks the code points at every start-up (6 ms), and a literal keeps the
tokens the same whatever Unicode version a later Python brings (the tests compare the two).
"""

CURRENCY_SYMBOLS = (
    "$\xa2\xa3\xa4\xa5\u058f\u060b\u07fe\u07ff\u09f2\u09f3\u09fb\u0af1\u0bf9\u0e3f\u17db"
    "\u20a0\u20a1\u20a2\u20a3\u20a4\u20a5\u20a6\u20a7\u20a8\u20a9\u20aa\u20ab\u20ac\u20ad\u20ae\u20af"
    "\u20b0\u20b1\u20b2\u20b3\u20b4\u20b5\u20b6\u20b7\u20b8\u20b9\u20ba\u20bb\u20bc\u20bd\u20be\u20bf"
    "\u20c0\ua838\ufdfc\ufe69\uff04\uffe0\uffe1\uffe5\uffe6"
    "\U00011fdd\U00011fde\U00011fdf\U00011fe0\U0001e2ff\U0001ecb0"
)
