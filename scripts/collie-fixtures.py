#!/usr/bin/env python3
"""Official COLLIE verdicts for revloop's parity tests, computed by COLLIE's own checker
(collie/constraints.py and the constraint objects in data/all_data.dill) with Debian's
python3-nltk, python3-dill and python3-rich. Run by hand (never at test time):

    /usr/bin/python3 scripts/collie-fixtures.py /path/to/Collie-checkout

The checkout needs collie/ and data/all_data.dill (github:princeton-nlp/Collie, revision efce1c8).
NLTK's Punkt parameters come from ../shared/data/punkt/english.json (scripts/fixture_punkt.py).
It writes test/fixtures/collie/:

- synthetic.json: our own random texts with our own targets (derived from the texts through
  COLLIE's own extraction, then sometimes altered), for all 13 structures, and the verdict of the
  official constraint object of that structure;
- witness-edits.json: for every row of ../shared/data/collie/collie_all.jsonl, the verdicts of the
  row's own constraint on its witness and on seven deterministic edits of it (the edits are named
  here and reimplemented by the test; no text of the data is stored);
- log-verdicts.json: for every draft of COLLIE's released gpt-3.5-turbo multi-round log
  (../shared/data/collie-logs), the verdict on the raw text and on the stripped text (the log's
  texts are read by the test at run time; only verdicts are stored).
"""
from __future__ import annotations

import json
import random
import string
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_punkt import ROOT, VERSIONS, install_punkt, shared_data  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
CHECKOUT = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(CHECKOUT))
install_punkt()

import dill  # noqa: E402
import rich  # noqa: E402,F401  (COLLIE imports it)
from collie.constraints import InputLevel, Level, TargetLevel  # noqa: E402

OUT = ROOT / "test" / "fixtures" / "collie"
DILL = CHECKOUT / "data" / "all_data.dill"
with DILL.open("rb") as f:
    ALL = dill.load(f)

# One official constraint object per structure; every row of a structure renders the same constraint.
CONSTRAINTS: dict[str, object] = {}
for key, examples in ALL.items():
    structure = key.split("_", 1)[1]
    for x in examples:
        CONSTRAINTS.setdefault(structure, x["constraint"])
        assert str(x["constraint"]) == str(CONSTRAINTS[structure]), key

ROWS = [json.loads(line) for line in (shared_data() / "collie" / "collie_all.jsonl").read_text(encoding="utf-8").splitlines()]
for r in ROWS:
    assert r["constraint"] == str(CONSTRAINTS[r["structure"]]), r["id"]


def verdict(structure: str, text: str, targets) -> bool:
    return bool(CONSTRAINTS[structure](text, targets))


def write(name: str, payload: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": "scripts/collie-fixtures.py", "collie": "princeton-nlp/Collie efce1c8", "versions": VERSIONS, **payload}
    (OUT / name).write_text(json.dumps(payload, ensure_ascii=True, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")


# ---- synthetic texts -----------------------------------------------------------------------

rng = random.Random(1515)
WORDS = ("the a he she it they we i an of to in on at by for with from about over under after before "
         "river lantern harbor quietly remarkable extraordinarily cat dog sun moon garden window "
         "Mr. Dr. U.S. e.g. etc. 3.5 1,200 don't can't it's o'clock well-known naïve café Zürich "
         "He The I She It They We").split()
PUNCT = [".", ".", ".", ",", ",", "!", "?", ";", ":", "...", " -- ", '"', "'", "(", ")", "“", "”", "’"]
SEPS = [" ", " ", " ", " ", "\n", "\n\n", "\n\n\n", "  ", "\t", " \n\n "]


def random_text(max_words: int) -> str:
    out = []
    for _ in range(rng.randint(0, max_words)):
        out.append(rng.choice(WORDS))
        if rng.random() < 0.25:
            out.append(rng.choice(PUNCT))
        out.append(rng.choice(SEPS))
    text = "".join(out)
    return text.strip() if rng.random() < 0.7 else text


def sentence_text(n_sent: int, lo: int, hi: int, first=None, paragraphs=1) -> str:
    paras = []
    for _ in range(paragraphs):
        sents = []
        for _ in range(n_sent):
            ws = [rng.choice(WORDS).lower() for _ in range(rng.randint(lo, hi))]
            if first and rng.random() < 0.85:
                ws[0] = first
            sents.append(" ".join(ws).capitalize() + rng.choice([".", ".", "!", "?"]))
        paras.append(" ".join(sents))
    return rng.choice(["\n\n", "\n\n", " ", "\n"]).join(paras)


def word_text() -> str:
    pool = ["extraordinarily", "quietly", "lanterns", "harbor", "naïve", "mid-air", "o'clock", "Zürich", "e.g.", "photosynthesis",
            "antidisestablishment", "x", "wax", "box!", "  spaced  ", "end.", "ω-meson", "😀face", "C++", "café"]
    w = rng.choice(pool)
    if rng.random() < 0.2:
        w += rng.choice(["", " ", ".", "s", "es"])
    return w


def ext(structure_level_in, level_target, text):
    return TargetLevel(level_target)(InputLevel(structure_level_in)(text) if structure_level_in else text)


def chars(text):
    return TargetLevel("character")(text)


def words(text):
    return TargetLevel("word")(text)


def sents(text):
    return TargetLevel("sentence")(text)


def jiggle(n: int) -> int:
    return max(0, n + rng.choice([0, 0, 0, 1, -1, 2, -2]))


def synthetic_case(structure: str):
    if structure in ("c01", "c02", "c03"):
        text = word_text()
        cs = chars(text)
        if structure == "c01":
            return text, [jiggle(len(cs))]
        if structure == "c02":
            text = rng.choice(["photosynthesis", "extraordinarily", "antidisestablishment", "Hydrogenation", "mid-afternoon!"]) + rng.choice(["", "", "s", " ", "."])
            cs = chars(text)
            picks = [cs[i] if i < len(cs) and rng.random() < 0.9 else rng.choice("aeiosr") for i in (3, 7, 10)]
            return text, [len(cs) if rng.random() < 0.7 else jiggle(len(cs)), picks]
        last = cs[-1] if cs and rng.random() < 0.8 else rng.choice("xyz")
        return text, [jiggle(len(cs)), last if last else "x"]
    if structure == "c04":
        text = random_text(12)
        return text, jiggle(len(chars(text)))
    if structure == "c05":
        text = sentence_text(1, 8, 16)
        ws = words(text)
        return text, [jiggle(len(ws)), [ws[i] if i < len(ws) and rng.random() < 0.8 else "river" for i in (3, 7, 10)]]
    if structure == "c06a":
        text = random_text(20) if rng.random() < 0.3 else sentence_text(1, 6, 20)
        ws = words(text)
        longest = max([len(list(w)) for w in ws], default=1)
        return text, [max(1, jiggle(len(ws))), max(1, jiggle(longest))]
    if structure == "c07":
        text = sentence_text(1, 6, 14)
        ws = words(text) or ["river"]
        return text, [rng.choice(ws) if rng.random() < 0.8 else "absent" for _ in range(3)]
    if structure == "c08":
        first = rng.choice(["He", "The", "I", "She"])
        text = sentence_text(rng.randint(1, 5), 3, 9, first=first) if rng.random() < 0.8 else random_text(15)
        return text, first
    if structure == "c09":
        text = sentence_text(rng.randint(1, 5), 3, 9)
        return text, [jiggle(len(sents(text))), *rng.sample(["he", "river", "the", "cat", "absent", "moon"], 3)]
    if structure == "c10":
        text = sentence_text(rng.randint(1, 5), 3, 12)
        counts = [len(w) for w in ext("sentence", "word", text)] or [0]
        return text, [jiggle(len(counts)), max(0, jiggle(min(counts))), jiggle(max(counts))]
    if structure == "c11":
        text = sentence_text(rng.randint(1, 5), 3, 12) if rng.random() < 0.8 else random_text(20)
        counts = [len(w) for w in ext("sentence", "word", text)] or [0]
        return text, [max(1, jiggle(len(counts))), jiggle(min(counts))]
    if structure == "c12":
        text = sentence_text(rng.randint(1, 4), 3, 9)
        lasts = [w[-1] if w else "river" for w in ext("sentence", "word", text)]
        return text, [jiggle(len(lasts)), [x if rng.random() < 0.85 else "river" for x in lasts] or ["river"]]
    if structure == "c14":
        text = sentence_text(rng.randint(1, 3), 3, 8, paragraphs=rng.randint(1, 4))
        if rng.random() < 0.2:
            text = text.replace("\n\n", "\n\n\n", 1)
        per_para = ext("paragraph", "sentence", text)
        lasts = [p[-1] if p else "Nothing" for p in per_para]
        if rng.random() < 0.2:
            lasts = lasts[:-1] or ["Nothing"]
        lasts = [x if rng.random() < 0.85 else x.upper() + "!" for x in lasts]
        return text, [lasts, jiggle(min(len(p) for p in per_para))]
    raise ValueError(structure)


STRUCTURES = sorted(CONSTRAINTS)
synthetic = []
for structure in STRUCTURES:
    for i in range(80):
        text, targets = synthetic_case(structure)
        synthetic.append({"structure": structure, "targets": targets, "text": text, "official": verdict(structure, text, targets)})
# Edge texts for every structure: empty, whitespace, punctuation only.
for structure in STRUCTURES:
    targets = next(r["targets"] for r in ROWS if r["structure"] == structure)
    for text in ["", " ", "...", "\n\n", "."]:
        if structure == "c14" or structure in ("c05", "c07", "c09", "c12"):
            # targets of these structures hold words of the data; use our own of the same shape
            targets = {"c05": [3, ["a", "b", "c"]], "c07": ["a", "b"], "c09": [1, "a"], "c12": [1, ["a"]], "c14": [["a"], 1]}[structure]
        if structure == "c08":
            targets = "He"
        synthetic.append({"structure": structure, "targets": targets, "text": text, "official": verdict(structure, text, targets)})
counts = Counter((c["structure"], c["official"]) for c in synthetic)
write("synthetic.json", {"cases": synthetic})
print("synthetic.json", len(synthetic), "cases;", dict(sorted(counts.items())))

# ---- witness edits -----------------------------------------------------------------------------

EDITS = {
    "witness": lambda t: t,
    "append": lambda t: t + " And then it ended.",
    "prepend": lambda t: "Well, " + t,
    "first-half": lambda t: t[: len(t) // 2],
    "drop-last-char": lambda t: t[:-1],
    "join-paragraphs": lambda t: t.replace("\n\n", " "),
    "double": lambda t: t + "\n\n" + t,
    "exclaim": lambda t: t.replace(". ", "! "),
}
edit_verdicts = {}
for r in ROWS:
    edit_verdicts[r["id"]] = "".join("1" if verdict(r["structure"], f(r["witness"]), r["targets"]) else "0" for f in EDITS.values())
assert all(v[0] == "1" for v in edit_verdicts.values())
write("witness-edits.json", {"edits": list(EDITS), "verdicts": edit_verdicts})
print("witness-edits.json", len(edit_verdicts), "rows ×", len(EDITS), "edits;", Counter("".join(edit_verdicts.values())))

# ---- the released gpt-3.5-turbo multi-round log ---------------------------------------------------

log = json.loads((shared_data() / "collie-logs" / "gpt-3.5-turbo-multi-round-generation-1trial.json").read_text(encoding="utf-8"))
by_prompt = defaultdict(list)
for r in ROWS:
    by_prompt[r["prompt"]].append(r)
rounds = ["1st_round_text", "2nd_round_text", "3rd_round_text"]
entries = []
for i, prompt in enumerate(log["prompts"]):
    row = by_prompt[prompt][0]
    drafts = []
    for key in rounds:
        if i >= len(log[key]) or not isinstance(log[key][i], str):
            drafts.append("-")
            continue
        text = log[key][i]
        raw, stripped = verdict(row["structure"], text, row["targets"]), verdict(row["structure"], text.strip(), row["targets"])
        drafts.append(f"{int(raw)}{int(stripped)}")
    # [row id, verdicts per round: "<raw><stripped>" as 0/1, or "-" when the log has no such draft]
    entries.append([row["id"], *drafts])
tally = Counter(d[0] for e in entries for d in e[1:] if d != "-")
write("log-verdicts.json", {"log": "gpt-3.5-turbo-multi-round-generation-1trial.json", "rounds": rounds, "entries": entries})
print("log-verdicts.json", len(entries), "prompts;", sum(tally.values()), "drafts;", dict(tally))
