#!/usr/bin/env python3
"""Exports the data of Python's langdetect (Debian's python3-langdetect 1.0.9, Apache License 2.0;
a port of Nakatani Shuyo's language-detection) that revloop's TypeScript port needs, as one binary
file: the 55 language profiles (n-gram frequencies), the CJK and Vietnamese normalisation tables,
the Latin-1 exclusions and the Unicode block ranges the normaliser looks at. Run by hand:

    /usr/bin/python3 scripts/langdetect-data.py

It writes src/core/verify/ifeval/langdetect/profiles.bin. Profiles are written in sorted language
order (Python's langdetect loads them in os.listdir order, which depends on the file system; the
order only matters for floating-point ties, and revloop fixes it: docs/verify.md).

The file is laid out for a fast start (loading langdetect's per-language JSON dictionaries, or one
gzipped JSON of them, cost a process about 100 ms): every n-gram of the profiles (one to three code
points, all in the BMP) is a number, key = k1 * 65537^2 + k2 * 65537 + k3 with k = code point + 1,
left-padded with 0 (so a search needs no strings), and the keys are stored sorted. Little-endian:
  "LDP1", uint32 header length, header (UTF-8 JSON: the tables, `langs`, `n_words`, `grams`,
  `pairs`), zero padding to a multiple of 8;
  float64[grams]    the keys, ascending;
  uint32[grams + 1] where each n-gram's pairs start in `pairs` (the last: the number of pairs);
  uint32[pairs]     count * 64 + language index, per n-gram in key order, languages ascending.
"""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import langdetect
from langdetect.utils import messages
from langdetect.utils import unicode_block as ub
from langdetect.utils.ngram import NGram

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "core" / "verify" / "ifeval" / "langdetect" / "profiles.bin"
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
# none of the profiles holds another length, or a character outside the BMP), each with the languages
# that hold it, keyed by number.
R = 65537
holders: dict[int, list[tuple[int, int]]] = {}
for index, prof in enumerate(profiles):
    for gram, count in prof["freq"].items():
        assert 1 <= len(gram) <= 3 and all(ord(c) <= 0xFFFF for c in gram), gram
        k = [0] * (3 - len(gram)) + [ord(c) + 1 for c in gram]
        holders.setdefault((k[0] * R + k[1]) * R + k[2], []).append((index, count))
keys = sorted(holders)
starts, pairs = [], []
for key in keys:
    starts.append(len(pairs))
    for index, count in sorted(holders[key]):
        assert index < 64 and count < 2**26, (index, count)
        pairs.append(count * 64 + index)
starts.append(len(pairs))

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
    "grams": len(keys),
    "pairs": len(pairs),
}
OUT.parent.mkdir(parents=True, exist_ok=True)
header = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
head = b"LDP1" + struct.pack("<I", len(header)) + header
head += b"\0" * (-len(head) % 8)
body = struct.pack(f"<{len(keys)}d", *keys) + struct.pack(f"<{len(starts)}I", *starts) + struct.pack(f"<{len(pairs)}I", *pairs)
OUT.write_bytes(head + body)
print(OUT, len(head) + len(body), "bytes,", len(profiles), "profiles,", len(keys), "n-grams,", len(pairs), "pairs")
