"""google-research's IFEval checker (instruction_following_eval) set up the way revloop's parity
fixtures need it: NLTK's Punkt parameters from ../shared/data/punkt (scripts/fixture_punkt.py) and
langdetect seeded with 0, its profiles loaded in sorted order, as revloop's port does (the official
call is unseeded: scripts/langdetect-fixtures.py measures what that changes). The one owner of how
the official strict/loose follow lists are computed for fixtures. Imported by
scripts/ifeval-fixtures.py and scripts/ifeval-real-fixtures.py; never at test time."""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture_punkt import ROOT, VERSIONS, install_punkt, shared_data  # noqa: E402,F401

OUT = ROOT / "test" / "fixtures" / "ifeval"
# The checker's files whose SHA-256 the fixtures record (which revision produced the verdicts).
CHECKER_FILES = ("instructions.py", "instructions_registry.py", "instructions_util.py")

ev = None
registry = None
checkout: Path | None = None


def setup(path: str) -> None:
    """Imports the checker from a google-research checkout (the folder holding instruction_following_eval/)."""
    global ev, registry, checkout
    checkout = Path(path).resolve()
    sys.path.insert(0, str(checkout))
    install_punkt()

    from langdetect import detector_factory

    real_listdir = os.listdir
    detector_factory.os.listdir = lambda p: sorted(real_listdir(p))
    detector_factory.init_factory()
    detector_factory.os.listdir = real_listdir
    detector_factory._factory.set_seed(0)

    try:
        from instruction_following_eval import evaluation_lib as evaluation
    except ImportError:
        from instruction_following_eval import evaluation_main as evaluation
    from instruction_following_eval import instructions_registry

    ev, registry = evaluation, instructions_registry


def evaluate(prompt: str, ids: list[str], kwargs: list[dict], response: str) -> tuple[list[bool], list[bool]]:
    """The official strict and loose follow lists (test_instruction_following_strict / _loose)."""
    inp = ev.InputExample(key=0, instruction_id_list=ids, prompt=prompt, kwargs=kwargs)
    strict = ev.test_instruction_following_strict(inp, {prompt: response}).follow_instruction_list
    loose = ev.test_instruction_following_loose(inp, {prompt: response}).follow_instruction_list
    return strict, loose


def random_letter_case(iid: str, kw: dict) -> bool:
    """keywords:letter_frequency with a letter outside a-z: this revision checks a random letter (keys 1122, 1129)."""
    letter = kw.get("letter")
    return iid == "keywords:letter_frequency" and isinstance(letter, str) and not ("a" <= letter.lower() <= "z")


def sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def checker_hashes() -> dict[str, str]:
    return {name: sha256((checkout / "instruction_following_eval" / name).read_bytes()) for name in CHECKER_FILES}


def write(name: str, generated_by: str, payload: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": generated_by, "versions": VERSIONS, **payload}
    (OUT / name).write_text(json.dumps(payload, ensure_ascii=False, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")


def input_rows() -> list[dict]:
    """The 541 rows of ../shared/data/ifeval/input_data.jsonl."""
    text = (shared_data() / "ifeval" / "input_data.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]
