#!/usr/bin/env python3
"""Official IFEval verdicts on real model outputs: google-research's GPT-4 responses to all 541
prompts (instruction_following_eval/data/input_response_data_gpt4_20231107_145030.jsonl), judged by
the official checker as scripts/ifeval_official.py sets it up (langdetect seeded with 0). Run by hand
(never at test time):

    /usr/bin/python3 scripts/ifeval-real-fixtures.py /path/to/google-research-checkout RESPONSES.jsonl

The checkout needs instruction_following_eval/ at 26d8ccdab (the revision of
../shared/data/ifeval/input_data.jsonl; e.g. `git archive 26d8ccdab instruction_following_eval`;
a fork's later commit that rewrites instructions.py will not do: the fixture records the SHA-256 of
the checker's files). RESPONSES.jsonl is that folder's
data/input_response_data_gpt4_20231107_145030.jsonl ({prompt, response} per line).

Writes test/fixtures/ifeval/gpt4-verdicts.json with derived data only (never a prompt or response
text): the SHA-256 of the responses file, and per input_data key the line of its response, the
SHA-256 of the response text and the official strict and loose follow lists. Responses are matched
to input_data rows by prompt text. The one response whose prompt is not in input_data (key 2785:
26d8ccdab reworded its prompt after the responses were made, leaving the instruction list and
kwargs as they were) is matched by line and marked `prompt_differs`; it is checked against the row's
instruction list and kwargs, as every other. keywords:letter_frequency with a letter outside a-z
(keys 1122 and 1129) is checked against a random letter by this revision: those entries are null.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ifeval_official as official  # noqa: E402

if len(sys.argv) != 3:
    sys.exit(__doc__)
official.setup(sys.argv[1])
responses_path = Path(sys.argv[2])
raw = responses_path.read_bytes()
responses = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
rows = official.input_rows()
assert len(rows) == 541 and len(responses) == 541, (len(rows), len(responses))

by_prompt: dict[str, int] = {}
for i, r in enumerate(responses):
    assert set(r) == {"prompt", "response"}, f"line {i + 1}: fields {sorted(r)}"
    assert r["prompt"] not in by_prompt, f"line {i + 1}: prompt repeated"
    by_prompt[r["prompt"]] = i

lines: dict[int, int] = {}
changed: list[int] = []
for row in rows:
    if row["prompt"] in by_prompt:
        lines[row["key"]] = by_prompt[row["prompt"]]
unmatched_lines = sorted(set(range(len(responses))) - set(lines.values()))
for n, row in enumerate(rows):
    if row["key"] in lines:
        continue
    # Only a row whose own line holds the one response matched to nothing (the files share their order).
    assert n in unmatched_lines, f"key {row['key']}: no response with its prompt, and line {n + 1} answers another row"
    lines[row["key"]] = n
    changed.append(row["key"])
assert len(set(lines.values())) == 541

entries = []
n_compared = n_null = 0
for row in rows:
    i = lines[row["key"]]
    response = responses[i]["response"]
    strict, loose = official.evaluate(row["prompt"], row["instruction_id_list"], row["kwargs"], response)
    random_letter = [official.random_letter_case(iid, kw) for iid, kw in zip(row["instruction_id_list"], row["kwargs"])]
    entry = {
        "key": row["key"],
        "line": i,
        "response_sha256": official.sha256(response),
        "strict": [None if r else s for s, r in zip(strict, random_letter)],
        "loose": [None if r else s for s, r in zip(loose, random_letter)],
    }
    if row["key"] in changed:
        entry["prompt_differs"] = True
    n_null += sum(random_letter)
    n_compared += len(random_letter) - sum(random_letter)
    entries.append(entry)

official.write(
    "gpt4-verdicts.json",
    "scripts/ifeval-real-fixtures.py",
    {
        "checker_sha256": official.checker_hashes(),
        "responses_file": responses_path.name,
        "responses_sha256": official.sha256(raw),
        "verdicts": entries,
    },
)


def accuracies(mode: str) -> tuple[int, int, int, int]:
    """Prompt-level (prompts without a null verdict) and instruction-level (non-null verdicts) counts."""
    pf = pn = inf = inn = 0
    for e in entries:
        marks = e[mode]
        if None not in marks:
            pn += 1
            pf += all(marks)
        known = [m for m in marks if m is not None]
        inn += len(known)
        inf += sum(known)
    return pf, pn, inf, inn


print(f"gpt4-verdicts.json: {len(entries)} responses, {n_compared + n_null} instructions "
      f"({n_compared} compared, {n_null} null: random letter); prompt changed since the responses: {changed}")
for mode in ("strict", "loose"):
    pf, pn, inf, inn = accuracies(mode)
    print(f"  {mode}: prompt-level {pf}/{pn} = {pf / pn:.4f}, instruction-level {inf}/{inn} = {inf / inn:.4f}")
