#!/usr/bin/env python3
"""Exports the data of Python's langdetect (Debian's python3-langdetect 1.0.9, Apache License 2.0;
a port of Nakatani Shuyo's language-detection) that revloop's TypeScript port needs, as one gzipped
JSON file: the 55 language profiles (n-gram frequencies), the CJK and Vietnamese normalisation
tables, the Latin-1 exclusions and the Unicode block ranges the normaliser looks at. Run by hand:

    /usr/bin/python3 scripts/langdetect-data.py

It writes src/core/verify/ifeval/langdetect/data.json.gz. Profiles are written in sorted language order
(Python's langdetect loads them in os.listdir order, which depends on the file system; the order
only matters for floating-point ties, and revloop fixes it: docs/verify.md).

The profiles are stored for a fast start rather than as langdetect's per-language dictionaries
(parsing 184,129 object keys cost a process a quarter of a second): `langs` and `n_words` per
language, `ngrams` (every n-gram of one to three code points any profile holds, in first-seen order
over the sorted profiles, joined by "\n") and `freq`, base64 of little-endian uint32 values: for each
n-gram in that order, the number of languages m that hold it, then m pairs (language index, count).
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import struct
from pathlib import Path

import langdetect
from langdetect.utils import messages
from langdetect.utils import unicode_block as ub
from langdetect.utils.ngram import NGram

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "core" / "verify" / "ifeval" / "langdetect" / "data.json.gz"
PROFILES = Path(langdetect.__file__).parent / "profiles"

profiles = []
for name in sorted(os.listdir(PROFILES)):
    if name.startswith("."):
        continue
    d = json.loads((PROFILES / name).read_text(encoding="utf-8"))
    profiles.append({"name": d["name"], "n_words": d["n_words"], "freq": d["freq"]})

BLOCKS = {
    name: next((start, end) for (b, start, end) in ub._unicode_blocks if b == getattr(ub, name))
    for name in [
        "UNICODE_BASIC_LATIN", "UNICODE_LATIN_1_SUPPLEMENT", "UNICODE_LATIN_EXTENDED_B", "UNICODE_GENERAL_PUNCTUATION",
        "UNICODE_ARABIC", "UNICODE_LATIN_EXTENDED_ADDITIONAL", "UNICODE_HIRAGANA", "UNICODE_KATAKANA", "UNICODE_BOPOMOFO",
        "UNICODE_BOPOMOFO_EXTENDED", "UNICODE_CJK_UNIFIED_IDEOGRAPHS", "UNICODE_HANGUL_SYLLABLES",
    ]
}

# The union of the profiles' n-grams (1 to 3 code points: langdetect's extraction never asks for more;
# none of the profiles holds another length), each with the languages that hold it.
holders: dict[str, list[tuple[int, int]]] = {}
for index, prof in enumerate(profiles):
    for gram, count in prof["freq"].items():
        assert 1 <= len(gram) <= 3 and "\n" not in gram, gram
        holders.setdefault(gram, []).append((index, count))
words = []
for gram, pairs in holders.items():
    words.append(len(pairs))
    for index, count in pairs:
        words += [index, count]

data = {
    "source": "python3-langdetect 1.0.9 (Debian), Apache License 2.0; exported by scripts/langdetect-data.py",
    "latin1_excluded": messages.get_string("NGram.LATIN1_EXCLUDE"),
    "cjk_classes": NGram.CJK_CLASS,
    "vi": {
        "to_normalize": NGram.TO_NORMALIZE_VI_CHARS,
        "dmark_class": NGram.DMARK_CLASS,
        "normalized": NGram.NORMALIZED_VI_CHARS,
    },
    "blocks": {k[len("UNICODE_"):].lower(): v for k, v in BLOCKS.items()},
    "langs": [prof["name"] for prof in profiles],
    "n_words": [prof["n_words"] for prof in profiles],
    "ngrams": "\n".join(holders),
    "freq": base64.b64encode(struct.pack(f"<{len(words)}I", *words)).decode("ascii"),
}
OUT.parent.mkdir(parents=True, exist_ok=True)
raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")
OUT.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
print(OUT, len(raw), "bytes,", OUT.stat().st_size, "gzipped,", len(profiles), "profiles,", len(holders), "n-grams")
