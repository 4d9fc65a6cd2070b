#!/usr/bin/env python3
"""google-research's IFEval checker over a `revloop verify --jsonl` input of IFEval rows, for timing
and parity (bench/verify-e2e.ts --input ifeval):

    /usr/bin/python3 scripts/ifeval-reference.py CHECKOUT IN.jsonl [-o OUT.jsonl]

CHECKOUT holds instruction_following_eval/ at 26d8ccdab (see scripts/ifeval-real-fixtures.py); the
checker is set up by scripts/ifeval_official.py exactly as the fixtures are (Punkt parameters from
../shared/data/punkt, langdetect seeded with 0, as revloop's port is). Each row {"id", "family":
"ifeval", "instruction_id_list", "kwargs", "text"} is judged as the official evaluation does
(test_instruction_following_strict and _loose on the response as given), and one line is written per
row: {"id", "follow_instruction_list_strict", "follow_instruction_list_loose"}. Needs Debian's
python3-nltk, python3-langdetect, python3-absl and python3-immutabledict (/usr/bin/python3).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

T0 = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ifeval_official as official  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("input")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    official.setup(args.checkout)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    n = 0
    with open(args.input, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            # The prompt is only the key of the official functions' response lookup here.
            strict, loose = official.evaluate("", row["instruction_id_list"], row["kwargs"], row["text"])
            out.write(json.dumps({"id": row.get("id"), "follow_instruction_list_strict": strict,
                                  "follow_instruction_list_loose": loose}) + "\n")
            n += 1
    if out is not sys.stdout:
        out.close()
    sys.stderr.write(f"ifeval-reference: {n} rows in {time.perf_counter() - T0:.2f} s (Python {sys.version.split()[0]})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
