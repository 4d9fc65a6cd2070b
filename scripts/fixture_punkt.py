"""Makes Debian's NLTK (python3-nltk) tokenize with the English Punkt parameters of
../shared/data/punkt/english.json, so the official checkers that call nltk.sent_tokenize,
nltk.word_tokenize or nltk.data.load("…/punkt/english.pickle") run without downloading NLTK data.
Imported by scripts/collie-fixtures.py and scripts/ifeval_official.py; never at test time."""
from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import nltk
import nltk.data
import nltk.tokenize
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

ROOT = Path(__file__).resolve().parents[1]


def shared_data() -> Path:
    env = os.environ.get("REVLOOP_SHARED")
    return Path(env) / "data" if env else ROOT.parent / "shared" / "data"


def install_punkt() -> PunktSentenceTokenizer:
    d = json.loads((shared_data() / "punkt" / "english.json").read_text(encoding="utf-8"))
    p = PunktParameters()
    p.abbrev_types = set(d["abbrev_types"])
    p.collocations = set(tuple(x) for x in d["collocations"])
    p.sent_starters = set(d["sent_starters"])
    p.ortho_context = defaultdict(int, d["ortho_context"])
    punkt = PunktSentenceTokenizer(p)
    real_load = nltk.data.load

    def load(resource_url, *args, **kwargs):
        if "punkt" in str(resource_url):
            return punkt
        return real_load(resource_url, *args, **kwargs)

    # sent_tokenize / word_tokenize call the `load` bound in nltk.tokenize; the IFEval util calls nltk.data.load.
    nltk.tokenize.load = load
    nltk.data.load = load
    return punkt


VERSIONS = {"nltk": nltk.__version__}
