#!/usr/bin/env python3
"""The Python + NLTK reference verifiers over a `revloop verify --jsonl` input, for timing and parity.

    /usr/bin/python3 scripts/verify-reference.py IN.jsonl [-o OUT.jsonl] [--punkt english.json]

Reads the same JSON Lines rows as `revloop verify --jsonl` ({"id", "family", "target", "anchors",
"targets", "text"}), strips each text with str.strip() as the protocol does, and writes one line per
row, `{"id": ..., <verifier state>}` with json.dumps(..., ensure_ascii=False): the bytes revloop
writes, so the two outputs can be compared with cmp or a hash.

The verifiers are the reference protocol's (docs/protocol.md §1.6 and §6):
  exact-length  the word counter `\\b\\w+(?:[-']\\w+)*\\b` and `contains_literal` anchors (re.IGNORECASE);
  c05 ... c12   NLTK word_tokenize / Punkt sent_tokenize with the project's English Punkt parameters
                (../shared/data/punkt/english.json, loaded into PunktParameters the way NLTK's
                punkt_tab loader fills them), then the reference's words/sentences/normalized_literal;
  c01 c02 c03 c04 c06a c08 c11 c14
                COLLIE's other structures with COLLIE's semantics (collie/constraints.py: characters,
                words, sentences and paragraphs each strip()ped and stripped of "."; Relation's patched
                literals; Position's None past either end), in revloop's state fields (docs/verify.md).
Texts: the paper's families (exact-length, c05 ... c12) verify the stripped text, as the protocol does
with every draft; COLLIE's other structures verify the text as given, as COLLIE's checker does.
Uses Debian's python3-nltk (/usr/bin/python3). Prints the elapsed time to standard error; the
whole-process time is what bench/verify-e2e.ts measures from outside.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import string
import sys
import time
from collections import defaultdict
from pathlib import Path

T0 = time.perf_counter()

from nltk.tokenize.destructive import NLTKWordTokenizer  # noqa: E402
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def shared_punkt() -> Path:
    base = Path(os.environ["REVLOOP_SHARED"]) if os.environ.get("REVLOOP_SHARED") else ROOT.parent / "shared"
    return base / "data" / "punkt" / "english.json"


def load_punkt(path: Path) -> PunktSentenceTokenizer:
    d = json.loads(path.read_text(encoding="utf-8"))
    p = PunktParameters()
    p.abbrev_types = set(d["abbrev_types"])
    p.collocations = set(tuple(x) for x in d["collocations"])
    p.sent_starters = set(d["sent_starters"])
    p.ortho_context = defaultdict(int, d["ortho_context"])
    return PunktSentenceTokenizer(p)


# --- exact length (docs/protocol.md §6.1, §6.2) ----------------------------------------------

WORD_RE = re.compile(r"\b\w+(?:[-']\w+)*\b", flags=re.UNICODE)


def word_count(text: str) -> int:
    return len(WORD_RE.findall(text))


def contains_literal(text: str, phrase: str) -> bool:
    tokens = WORD_RE.findall(phrase)
    if not tokens:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(t) for t in tokens) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def verify_exact_length(text: str, target: int, anchors: list) -> dict:
    count = word_count(text)
    present = [contains_literal(text, a) for a in anchors]
    error = count - target
    missing = [a for a, p in zip(anchors, present) if not p]
    return {
        "word_count": count,
        "error": error,
        "exact_length": count == target,
        "missing": missing,
        "joint_success": count == target and not missing,
        "violation_vector": [abs(error) / max(target, 1)] + [0.0 if p else 1.0 for p in present],
    }


# --- structured (docs/protocol.md §1.6, §6.3) ------------------------------------------------

PUNKT: PunktSentenceTokenizer | None = None
TREEBANK = NLTKWordTokenizer()


def sent_tokenize(text: str) -> list:
    return PUNKT.tokenize(text)


def word_tokenize(text: str) -> list:
    return [tok for sent in sent_tokenize(text) for tok in TREEBANK.tokenize(sent)]


def words(text: str) -> list:
    return [tok.strip().strip(".") for tok in word_tokenize(text) if tok not in string.punctuation]


def sentences(text: str) -> list:
    return [s.strip().strip(".") for s in sent_tokenize(text)]


def normalized_literal(value):
    if not isinstance(value, str):
        return value
    stripped = value.lower().strip(string.punctuation + " ")
    return stripped if stripped else value


POSITIONS = [3, 7, 10]


def verify_c05(text: str, targets) -> dict:
    target_count = int(targets[0])
    target_words = list(targets[1])
    tokens = words(text)
    observed = [tokens[p] if p < len(tokens) else None for p in POSITIONS]
    matches = [normalized_literal(o) == normalized_literal(t) for o, t in zip(observed, target_words)]
    residual = len(tokens) - target_count
    mismatches = sum(1 for m in matches if not m)
    return {
        "joint_success": residual == 0 and mismatches == 0,
        "observed_word_count": len(tokens),
        "target_word_count": target_count,
        "count_residual": residual,
        "target_positions_zero_based": list(POSITIONS),
        "target_words": target_words,
        "observed_words": observed,
        "position_matches": matches,
        "position_mismatch_count": mismatches,
        "violation_vector": [abs(residual) / max(target_count, 1)] + [0.0 if m else 1.0 for m in matches],
    }


def verify_c07(text: str, targets) -> dict:
    tokens = [normalized_literal(w) for w in words(text)]
    present = [normalized_literal(t) in tokens for t in targets]
    return {
        "joint_success": all(present),
        "target_words": list(targets),
        "target_present": present,
        "missing_count": sum(1 for p in present if not p),
        "violation_vector": [0.0 if p else 1.0 for p in present],
    }


def verify_c09(text: str, targets) -> dict:
    target_sentences = int(targets[0])
    forbidden = list(targets[1:])
    units = sentences(text)
    tokens = [normalized_literal(w) for w in words(text)]
    counts = [sum(1 for t in tokens if t == normalized_literal(f)) for f in forbidden]
    residual = len(units) - target_sentences
    return {
        "joint_success": residual == 0 and all(k == 0 for k in counts),
        "observed_sentence_count": len(units),
        "target_sentence_count": target_sentences,
        "sentence_count_residual": residual,
        "forbidden_words": forbidden,
        "forbidden_word_counts": counts,
        "violation_vector": [abs(residual) / max(target_sentences, 1)] + [float(k) for k in counts],
    }


def verify_c10(text: str, targets) -> dict:
    target_sentences, lower, upper = (int(x) for x in targets)
    units = sentences(text)
    counts = [len(words(u)) for u in units]
    residual = len(units) - target_sentences
    deficits = [max(0, lower - c) for c in counts]
    excesses = [max(0, c - upper) for c in counts]
    vector = [abs(residual) / max(target_sentences, 1)]
    vector += [d / max(lower, 1) for d in deficits]
    vector += [e / max(upper, 1) for e in excesses]
    return {
        "joint_success": residual == 0 and all(d == 0 for d in deficits) and all(e == 0 for e in excesses),
        "observed_sentence_count": len(units),
        "target_sentence_count": target_sentences,
        "sentence_count_residual": residual,
        "sentence_word_counts": counts,
        "lower_bound": lower,
        "upper_bound": upper,
        "lower_deficits": deficits,
        "upper_excesses": excesses,
        "violation_vector": vector,
    }


def verify_c12(text: str, targets) -> dict:
    target_sentences = int(targets[0])
    target_last = list(targets[1])
    units = sentences(text)
    observed = []
    for unit in units:
        toks = words(unit)
        observed.append(toks[-1] if toks else None)
    matches = [i < len(observed) and normalized_literal(observed[i]) == normalized_literal(t) for i, t in enumerate(target_last)]
    residual = len(units) - target_sentences
    return {
        "joint_success": residual == 0 and all(matches),
        "observed_sentence_count": len(units),
        "target_sentence_count": target_sentences,
        "sentence_count_residual": residual,
        "target_last_words": target_last,
        "observed_last_words": observed,
        "last_word_matches": matches,
        "last_word_mismatch_count": sum(1 for m in matches if not m),
        "violation_vector": [abs(residual) / max(target_sentences, 1)] + [0.0 if m else 1.0 for m in matches],
    }


STRUCTURED = {"c05": verify_c05, "c07": verify_c07, "c09": verify_c09, "c10": verify_c10, "c12": verify_c12}


# --- COLLIE's other structures (collie/constraints.py at efce1c8) ------------------------------


def unit_strip(token: str) -> str:
    return token.strip().strip(".")


def characters(text: str) -> list:
    return [unit_strip(c) for c in text]


def paragraphs(text: str) -> list:
    return [unit_strip(p) for p in text.split("\n\n")]


def same(observed, target) -> bool:
    return normalized_literal(observed) == normalized_literal(target)


def at(units: list, position: int):
    return units[position] if -len(units) <= position < len(units) else None


def scalar(t):
    return t[0] if isinstance(t, list) and len(t) == 1 else t


def ratio(n, d) -> float:
    return n / max(d, 1)


def flag(ok: bool) -> float:
    return 0.0 if ok else 1.0


def verify_c01(text: str, targets) -> dict:
    minimum = int(scalar(targets))
    count = len(text)
    deficit = max(0, minimum - count)
    return {
        "joint_success": count >= minimum,
        "observed_character_count": count,
        "minimum_character_count": minimum,
        "character_deficit": deficit,
        "violation_vector": [ratio(deficit, minimum)],
    }


def verify_c02(text: str, targets) -> dict:
    target = int(targets[0])
    chars = list(targets[1])
    units = characters(text)
    observed = [at(units, p) for p in POSITIONS]
    matches = [len(chars) != 1 and i < len(chars) and same(observed[i], chars[i]) for i in range(len(POSITIONS))]
    residual = len(units) - target
    mismatches = sum(1 for m in matches if not m)
    return {
        "joint_success": residual == 0 and len(chars) == len(POSITIONS) and mismatches == 0,
        "observed_character_count": len(units),
        "target_character_count": target,
        "count_residual": residual,
        "target_positions_zero_based": list(POSITIONS),
        "target_characters": chars,
        "observed_characters": observed,
        "position_matches": matches,
        "position_mismatch_count": mismatches,
        "violation_vector": [ratio(abs(residual), target)] + [flag(m) for m in matches],
    }


def verify_c03(text: str, targets) -> dict:
    target = int(targets[0])
    last = targets[1]
    units = characters(text)
    observed = at(units, -1)
    match = same(observed, scalar(last))
    residual = len(units) - target
    return {
        "joint_success": residual == 0 and match,
        "observed_character_count": len(units),
        "target_character_count": target,
        "count_residual": residual,
        "target_last_character": last,
        "observed_last_character": observed,
        "last_character_match": match,
        "violation_vector": [ratio(abs(residual), target), flag(match)],
    }


def verify_c04(text: str, targets) -> dict:
    target = int(scalar(targets))
    residual = len(text) - target
    return {
        "joint_success": residual == 0,
        "observed_character_count": len(text),
        "target_character_count": target,
        "count_residual": residual,
        "violation_vector": [ratio(abs(residual), target)],
    }


def verify_c06a(text: str, targets) -> dict:
    minimum = int(scalar(targets[0]))
    max_length = int(targets[1])
    ws = words(text)
    deficit = max(0, minimum - len(ws))
    long_words = []
    excess = 0
    for i, word in enumerate(ws):
        if len(word) > max_length:
            long_words.append({"index": i + 1, "word": word, "characters": len(word), "excess": len(word) - max_length})
            excess += len(word) - max_length
    return {
        "joint_success": len(ws) >= minimum and not long_words,
        "observed_word_count": len(ws),
        "minimum_word_count": minimum,
        "word_deficit": deficit,
        "maximum_word_length": max_length,
        "long_words": long_words,
        "violation_vector": [ratio(deficit, minimum), ratio(excess, max_length)],
    }


def verify_c08(text: str, targets) -> dict:
    firsts = [at(words(s), 0) for s in sentences(text)]
    matches = [same(w, targets) for w in firsts]
    mismatches = sum(1 for m in matches if not m)
    return {
        "joint_success": mismatches == 0,
        "observed_sentence_count": len(firsts),
        "target_first_word": targets,
        "observed_first_words": firsts,
        "first_word_matches": matches,
        "first_word_mismatch_count": mismatches,
        "violation_vector": [flag(m) for m in matches],
    }


def verify_c11(text: str, targets) -> dict:
    minimum = int(scalar(targets[0]))
    min_words = int(targets[1])
    counts = [len(words(s)) for s in sentences(text)]
    deficit = max(0, minimum - len(counts))
    word_deficits = [max(0, min_words - c) for c in counts]
    return {
        "joint_success": len(counts) >= minimum and all(d == 0 for d in word_deficits),
        "observed_sentence_count": len(counts),
        "minimum_sentence_count": minimum,
        "sentence_deficit": deficit,
        "minimum_words_per_sentence": min_words,
        "sentence_word_counts": counts,
        "word_deficits": word_deficits,
        "violation_vector": [ratio(deficit, minimum)] + [ratio(d, min_words) for d in word_deficits],
    }


def verify_c14(text: str, targets) -> dict:
    last_targets = list(targets[0])
    min_sentences = int(targets[1])
    units = [sentences(p) for p in paragraphs(text)]
    lasts = [at(s, -1) for s in units]
    counts = [len(s) for s in units]
    residual = len(units) - len(last_targets)
    matches = [i < len(lasts) and same(lasts[i], t) for i, t in enumerate(last_targets)]
    deficits = [max(0, min_sentences - c) for c in counts]
    return {
        "joint_success": residual == 0 and all(matches) and all(d == 0 for d in deficits),
        "observed_paragraph_count": len(units),
        "target_paragraph_count": len(last_targets),
        "paragraph_count_residual": residual,
        "target_last_sentences": last_targets,
        "observed_last_sentences": lasts,
        "last_sentence_matches": matches,
        "minimum_sentences_per_paragraph": min_sentences,
        "paragraph_sentence_counts": counts,
        "sentence_deficits": deficits,
        "violation_vector": [ratio(abs(residual), len(last_targets))] + [flag(m) for m in matches]
        + [ratio(d, min_sentences) for d in deficits],
    }


# Judged on the text as given, as COLLIE's checker does (the paper's families get str.strip() first).
COLLIE_RAW = {
    "c01": verify_c01, "c02": verify_c02, "c03": verify_c03, "c04": verify_c04,
    "c06a": verify_c06a, "c08": verify_c08, "c11": verify_c11, "c14": verify_c14,
}


def verify_row(row: dict) -> dict:
    family = row["family"]
    if family in COLLIE_RAW:
        state = COLLIE_RAW[family](row["text"], row["targets"])
    elif family == "exact-length":
        state = verify_exact_length(row["text"].strip(), row["target"], row["anchors"])
    else:
        state = STRUCTURED[family](row["text"].strip(), row["targets"])
    return {"id": row.get("id"), **state}


def main() -> int:
    global PUNKT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output")
    ap.add_argument("--punkt", default=None, help="english.json (default: ../shared/data/punkt/english.json)")
    args = ap.parse_args()
    PUNKT = load_punkt(Path(args.punkt) if args.punkt else shared_punkt())
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    n = 0
    with open(args.input, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                record = verify_row(row)
            except Exception as e:  # one bad line does not stop the batch, as in revloop
                record = {"id": None, "line": lineno, "error": f"{type(e).__name__}: {e}"}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    if out is not sys.stdout:
        out.close()
    sys.stderr.write(f"verify-reference: {n} lines in {time.perf_counter() - T0:.2f} s (Python {sys.version.split()[0]})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
