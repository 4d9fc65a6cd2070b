#!/usr/bin/env python3
"""Python langdetect's answers on our own texts, for revloop's port (src/core/verify/ifeval/langdetect).
Run by hand with Debian's python3-langdetect (never at test time):

    /usr/bin/python3 scripts/langdetect-fixtures.py

For every text it records
- `seeded`: detect_langs() with seed 0 and the profiles loaded in sorted order (what revloop
  computes, exactly: language and probabilities), or the exception;
- `unseeded`: what IFEval's official call `langdetect.detect(text)` returned over RUNS runs
  (DetectorFactory.seed = None, profiles in os.listdir order): the count of each answer.
The texts are ours: short sentences in many languages, their prefixes (1 to 40 characters: short
and ambiguous), mixtures of two languages, case changes, markdown, URLs, digits and emoji.
Writes test/fixtures/ifeval/langdetect.json.
"""
from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter
from pathlib import Path

import langdetect
from langdetect import detector_factory
from langdetect.detector_factory import DetectorFactory
from langdetect.lang_detect_exception import LangDetectException

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "test" / "fixtures" / "ifeval" / "langdetect.json"
RUNS = 10

SENTENCES = {
    "en": ["The quick brown fox jumps over the lazy dog near the river.", "I would like a cup of tea, please.",
           "Our team shipped the new release on Friday afternoon.", "HELLO THERE, HOW ARE YOU DOING TODAY?"],
    "de": ["Der schnelle braune Fuchs springt über den faulen Hund.", "Ich möchte bitte eine Tasse Tee haben.",
           "Wir haben das neue Programm am Freitag veröffentlicht."],
    "fr": ["Le renard brun rapide saute par-dessus le chien paresseux.", "Je voudrais une tasse de thé, s'il vous plaît.",
           "Nous avons publié la nouvelle version vendredi après-midi."],
    "es": ["El rápido zorro marrón salta sobre el perro perezoso.", "Quisiera una taza de té, por favor.",
           "Publicamos la nueva versión el viernes por la tarde."],
    "it": ["La volpe marrone veloce salta sopra il cane pigro.", "Vorrei una tazza di tè, per favore.",
           "Abbiamo pubblicato la nuova versione venerdì pomeriggio."],
    "pt": ["A rápida raposa marrom pula sobre o cão preguiçoso.", "Eu gostaria de uma xícara de chá, por favor.",
           "Publicamos a nova versão na sexta-feira à tarde."],
    "nl": ["De snelle bruine vos springt over de luie hond.", "Ik wil graag een kopje thee, alstublieft."],
    "fi": ["Nopea ruskea kettu hyppää laiskan koiran yli.", "Haluaisin kupin teetä, kiitos."],
    "sv": ["Den snabba bruna räven hoppar över den lata hunden.", "Jag skulle vilja ha en kopp te, tack."],
    "pl": ["Szybki brązowy lis przeskakuje nad leniwym psem.", "Poproszę filiżankę herbaty."],
    "ru": ["Быстрая коричневая лиса перепрыгивает через ленивую собаку.", "Я хотел бы чашку чая, пожалуйста."],
    "uk": ["Швидка бура лисиця перестрибує через лінивого пса.", "Я хотів би чашку чаю, будь ласка."],
    "bg": ["Бързата кафява лисица прескача мързеливото куче.", "Бих искал чаша чай, моля."],
    "ar": ["الثعلب البني السريع يقفز فوق الكلب الكسول.", "أود فنجانا من الشاي من فضلك."],
    "fa": ["روباه قهوه ای سریع از روی سگ تنبل می پرد.", "من یک فنجان چای می خواهم لطفا."],
    "ur": ["تیز بھوری لومڑی سست کتے کے اوپر سے چھلانگ لگاتی ہے۔", "مجھے چائے کا ایک کپ چاہیے۔"],
    "hi": ["तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर कूदती है।", "मुझे एक कप चाय चाहिए, कृपया।"],
    "mr": ["वेगवान तपकिरी कोल्हा आळशी कुत्र्यावरून उडी मारतो.", "मला एक कप चहा हवा आहे."],
    "ne": ["छिटो खैरो स्याल अल्छी कुकुरमाथि उफ्रन्छ।", "मलाई एक कप चिया चाहिन्छ।"],
    "bn": ["দ্রুত বাদামী শিয়াল অলস কুকুরের উপর দিয়ে লাফ দেয়।", "আমি এক কাপ চা চাই।"],
    "gu": ["ઝડપી ભૂરું શિયાળ આળસુ કૂતરા પર કૂદે છે.", "મને એક કપ ચા જોઈએ છે."],
    "pa": ["ਤੇਜ਼ ਭੂਰੀ ਲੂੰਬੜੀ ਆਲਸੀ ਕੁੱਤੇ ਉੱਤੇ ਛਾਲ ਮਾਰਦੀ ਹੈ।", "ਮੈਨੂੰ ਇੱਕ ਕੱਪ ਚਾਹ ਚਾਹੀਦੀ ਹੈ।"],
    "ta": ["விரைவான பழுப்பு நரி சோம்பேறி நாயின் மேல் குதிக்கிறது.", "எனக்கு ஒரு கப் தேநீர் வேண்டும்."],
    "te": ["వేగవంతమైన గోధుమ నక్క సోమరి కుక్కపై దూకుతుంది.", "నాకు ఒక కప్పు టీ కావాలి."],
    "kn": ["ವೇಗದ ಕಂದು ನರಿ ಸೋಮಾರಿ ನಾಯಿಯ ಮೇಲೆ ಹಾರುತ್ತದೆ.", "ನನಗೆ ಒಂದು ಕಪ್ ಚಹಾ ಬೇಕು."],
    "ml": ["വേഗതയുള്ള തവിട്ട് കുറുക്കൻ മടിയനായ നായയുടെ മുകളിലൂടെ ചാടുന്നു.", "എനിക്ക് ഒരു കപ്പ് ചായ വേണം."],
    "th": ["สุนัขจิ้งจอกสีน้ำตาลกระโดดข้ามสุนัขขี้เกียจ", "ฉันอยากได้ชาหนึ่งถ้วย"],
    "vi": ["Con cáo nâu nhanh nhẹn nhảy qua con chó lười biếng.", "Tôi muốn một tách trà, làm ơn."],
    "ko": ["빠른 갈색 여우가 게으른 개를 뛰어넘습니다.", "차 한 잔 주세요."],
    "ja": ["素早い茶色の狐が怠け者の犬を飛び越える。", "お茶を一杯ください。"],
    "zh-cn": ["敏捷的棕色狐狸跳过了懒狗。", "请给我一杯茶。"],
    "sw": ["Mbweha mwepesi wa kahawia anaruka juu ya mbwa mvivu.", "Ningependa kikombe cha chai, tafadhali."],
    "he": ["השועל החום המהיר קופץ מעל הכלב העצלן.", "אני רוצה כוס תה, בבקשה."],
    "tr": ["Hızlı kahverengi tilki tembel köpeğin üzerinden atlar.", "Bir fincan çay istiyorum, lütfen."],
    "el": ["Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.", "Θα ήθελα ένα φλιτζάνι τσάι."],
    "id": ["Rubah cokelat yang cepat melompati anjing yang malas.", "Saya ingin secangkir teh."],
    "ro": ["Vulpea maro rapidă sare peste câinele leneș.", "Aș dori o ceașcă de ceai, vă rog."],
    "cs": ["Rychlá hnědá liška skáče přes líného psa.", "Chtěl bych šálek čaje, prosím."],
    "hu": ["A gyors barna róka átugrik a lusta kutyán.", "Kérek egy csésze teát."],
    "da": ["Den hurtige brune ræv hopper over den dovne hund.", "Jeg vil gerne have en kop te."],
    "no": ["Den raske brune reven hopper over den late hunden.", "Jeg vil gjerne ha en kopp te."],
}
EXTRAS = ["", " ", "12345", "3.14 + 2.71 = 5.85", "😀😀😀", "!!!???", "https://example.com/a/b?c=d", "mail me at a.b@example.org",
          "ok", "OK", "no", "si", "ja", "da", "tak", "merci", "gracias", "danke", "hello", "ciao", "Hallo", "salut",
          "**Title**\n\n* one\n* two", "<<My Title>>\n\nSome text here.", "P.S. see you", "AI", "USA", "NASA launched it.",
          "i love you", "I LOVE YOU", "je t'aime", "te quiero", "ich liebe dich", "ti amo", "eu te amo", "Я тебя люблю",
          "naïve café résumé", "Zürich", "Ångström", "Đà Nẵng", "Tiếng Việt có dấu", "e\u0301te\u0301", "cafe\u0301 au lait"]


def sorted_factory() -> DetectorFactory:
    real = os.listdir
    detector_factory.os.listdir = lambda p: sorted(real(p))
    try:
        f = DetectorFactory()
        f.load_profile(detector_factory.PROFILES_DIRECTORY)
    finally:
        detector_factory.os.listdir = real
    f.set_seed(0)
    return f


def main() -> None:
    rng = random.Random(2311)
    texts: list[str] = list(EXTRAS)
    all_sentences = [s for v in SENTENCES.values() for s in v]
    for s in all_sentences:
        texts.append(s)
        texts.append(s.lower())
        texts.append(s.upper())
        for n in (1, 2, 3, 5, 8, 12, 20, 40):
            texts.append(s[:n])
    for _ in range(150):
        a, b = rng.sample(all_sentences, 2)
        texts.append(a + " " + b)
        texts.append(a[: rng.randint(3, 30)] + " " + b[: rng.randint(3, 30)])
    for _ in range(60):
        words = " ".join(" ".join(rng.choice(all_sentences).split()[rng.randint(0, 3):][: rng.randint(1, 3)]) for _ in range(2))
        texts.append(words)
    texts = list(dict.fromkeys(texts))

    factory = sorted_factory()
    cases = []
    for text in texts:
        d = factory.create()
        d.append(text)
        try:
            seeded = {"langs": [[l.lang, l.prob] for l in d.get_probabilities()]}
        except LangDetectException as e:
            seeded = {"error": str(e)}
        counts: Counter[str] = Counter()
        for _ in range(RUNS):
            try:
                counts[langdetect.detect(text)] += 1
            except LangDetectException:
                counts["<error>"] += 1
        cases.append({"text": text, "seeded": seeded, "unseeded": dict(counts)})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": "scripts/langdetect-fixtures.py", "python": sys.version.split()[0], "langdetect": "1.0.9 (Debian python3-langdetect)",
               "runs": RUNS, "cases": cases}
    OUT.write_text(json.dumps(payload, ensure_ascii=False, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    unstable = sum(1 for c in cases if len(c["unseeded"]) > 1)
    print(OUT, len(cases), "texts;", unstable, "with more than one answer over", RUNS, "unseeded runs")


if __name__ == "__main__":
    main()
