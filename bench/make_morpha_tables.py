"""Rebuild ``capeval/data/morpha/morpha-3.6.0.tsv.gz`` by observing CoreNLP 3.6.0's lemma annotator.

Needs the oracle (Java, ``bench/oracle/morpha.py``). The word lists are what the annotator does,
recorded where it departs from the general rules written in ``capeval.metrics.spice.corenlp.morpha``:

1. **Probe words**: the words of the COCO val2014 captions, of Flickr8K's captions (when
   ``../shared`` is there), of WordNet 3.0 (the synonym tables capeval ships for METEOR) and of the
   parser's lexicon (``englishPCFG.ser.gz``, from ``CAPEVAL_SPICE_GRAMMAR`` or the oracle's models
   jar); each split into
   its runs of letters, digits, ``'`` and ``+``, plus regular inflections of every alphabetic
   one (+s, +es, +ed, +ing, +d, +n, +en, y -> ies/ied, e -> ing, a doubled last letter + ed/ing).
2. **Undoubling stems**: every probe prefix of the shape consonant-vowel-consonant (the last one
   doubled before -ed/-ing) is tried as ``stem + last letter + ed`` and ``+ ing`` under ``V`` (the
   verb rules without the special forms of ``VB*`` tags); the stems the annotator gives back are
   listed.
3. **Forms**: every probe word under ``NNS`` (noun rules) and ``V`` (verb rules); where the
   annotator and the general rules differ, the form and its lemma are listed. Then every whole
   vocabulary word with other characters (periods, hyphens: "mrs.", "passers-by") is checked the
   same way with those lists, and listed whole where it still differs; so are all abbreviations
   of one to three letters with a period, of the shapes "a.b.", "a.b.c." and "a-b.", and every
   alphabetic vocabulary word of four to six letters with a period ("cons.").
4. **Endings**: for each listed form, the shortest ending that keeps the same change after
   several made-up beginnings (``zq``, ``xq``, ``3b``, ``kxz``) is an ending rule
   (``{letters}houses`` -> ``{letters}house``); it needs at least one letter before it if the
   bare ending does not change that way. Forms the endings explain are dropped.
5. **Kept letters**: the lexer builds a listed form's lemma from the word's own leading letters
   plus a fixed ending; which letters it copies shows when an "i" or "s" of the form is written
   "ı" or "ſ" (which its fixed strings match and its lower-casing keeps). Every listed form is
   probed that way letter by letter; where fewer letters are copied than form and lemma share,
   the number is written as a fourth field.
6. Forms listed for both states with the same lemma are written once as ``both``.

Usage: ``PYTHONPATH=src python bench/make_morpha_tables.py [--out PATH]`` (about five minutes; the
annotator's answers are cached).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections.abc import Iterable
from pathlib import Path

from oracle import caption_words, flickr8k_captions, grammar_words, run_morpha, val2014_captions

from capeval.data import data_path
from capeval.metrics.spice.corenlp import morpha

PREFIXES = ("zq", "xq", "3b", "kxz")
_PIECE = re.compile(r"['+a-z0-9]+")
_CVC = re.compile(r"['+a-z0-9]*[bcdfghjklmnpqrstvwxyz][aeiou][bcdfghjklmnpqrtvwx]")
# Tags that send a word to the noun and verb rules and match no special form.
_STATE_TAGS = {"noun": "NNS", "verb": "V"}


def wordnet_words() -> set[str]:
    words: set[str] = set()
    for name in ("english.synsets.gz", "english.exceptions.gz"):
        with gzip.open(data_path("meteor", name), "rt", encoding="utf-8") as fh:
            for line in fh:
                word = line.strip()
                if word and not word[0].isdigit():
                    words.update(word.replace("_", " ").split())
    return words


def vocabulary() -> set[str]:
    """The words of COCO val2014 and Flickr8K captions, WordNet and the parser's lexicon."""
    with open(val2014_captions(), encoding="utf-8") as fh:
        captions = [item["caption"] for item in json.load(fh)["annotations"]]
    captions += flickr8k_captions() or []
    words = caption_words(captions) | set(grammar_words()) | wordnet_words()
    dotted = {f"{word.lower()}." for word in words if word.isalpha() and word.isascii() and 4 <= len(word) <= 6}
    return words | abbreviations() | dotted


def abbreviations() -> set[str]:
    """Made-up abbreviations with periods: "pp.", "mrs.", "m.p.", "m.p.s.", "n-s."."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    made = {f"{a}." for a in letters} | {f"{a}{b}." for a in letters for b in letters}
    made |= {f"{a}{b}{c}." for a in letters for b in letters for c in letters}
    made |= {f"{a}.{b}." for a in letters for b in letters} | {f"{a}-{b}." for a in letters for b in letters}
    made |= {f"{a}.{b}.{c}." for a in letters for b in letters for c in letters}
    return made


def probe_words(words: Iterable[str]) -> list[str]:
    """Lower-case runs of letters, digits, ' and + in ``words``, and regular inflections of them."""
    pieces = {piece for word in words for piece in _PIECE.findall(word.lower())}
    probes = set(pieces)
    for base in pieces:
        if not base.isalpha():
            continue
        probes.update(base + end for end in ("s", "es", "ed", "ing", "d", "n", "en"))
        if base.endswith("y"):
            probes.update((base[:-1] + "ies", base[:-1] + "ied"))
        if base.endswith("e"):
            probes.add(base[:-1] + "ing")
        if len(base) >= 3:
            probes.update((base + base[-1] + "ed", base + base[-1] + "ing"))
    return sorted(probes)


def undoubling_stems(probes: list[str]) -> frozenset[str]:
    candidates = sorted({p[:i] for p in probes for i in range(3, len(p) + 1) if _CVC.fullmatch(p[:i])})
    pairs = [(stem + stem[-1] + end, _STATE_TAGS["verb"]) for stem in candidates for end in ("ed", "ing")]
    lemmas = run_morpha(pairs)
    # A stem counts when either form comes back to it (the other may be a listed irregular form).
    return frozenset(stem for k, stem in enumerate(candidates) if stem in (lemmas[2 * k], lemmas[2 * k + 1]))


def differences(probes: list[str], tables: morpha._Tables) -> dict[str, dict[str, str]]:
    """Probe words whose lemma differs from what ``tables`` and the general rules give, per state."""
    pairs = [(word, tag) for word in probes for tag in _STATE_TAGS.values()]
    lemmas = run_morpha(pairs)
    restore = morpha._set_tables(tables)
    try:
        found: dict[str, dict[str, str]] = {"noun": {}, "verb": {}}
        for (word, tag), expected in zip(pairs, lemmas, strict=True):
            if morpha.lemma(word, tag) != expected:
                found["noun" if tag == _STATE_TAGS["noun"] else "verb"][word] = expected
        return found
    finally:
        restore()


def _change(word: str, lemma: str) -> tuple[int, str]:
    keep = 0
    while keep < min(len(word), len(lemma)) and word[keep] == lemma[keep]:
        keep += 1
    return len(word) - keep, lemma[keep:]


def endings(forms: dict[str, dict[str, str]], tables: morpha._Tables) -> dict[str, dict[str, tuple[str, int]]]:
    """Endings that change the same way after made-up beginnings (see the module's step 4)."""
    jobs = []
    for state, table in forms.items():
        for word, lemma in table.items():
            drop, add = _change(word, lemma)
            for size in range(max(drop, 1) + 1, len(word) + 1):
                jobs.append((state, word[-size:], drop, add))
    jobs = sorted(set(jobs))
    pairs = [(prefix + ending, _STATE_TAGS[state]) for state, ending, _, _ in jobs for prefix in PREFIXES]
    pairs += [(ending, _STATE_TAGS[state]) for state, ending, _, _ in jobs]
    lemmas = run_morpha(pairs)
    bare = lemmas[len(jobs) * len(PREFIXES) :]
    restore = morpha._set_tables(tables)
    try:
        found: dict[str, dict[str, tuple[str, int]]] = {"noun": {}, "verb": {}}
        for k, (state, ending, drop, add) in enumerate(jobs):
            tag = _STATE_TAGS[state]
            changed = [(prefix + ending)[: len(prefix) + len(ending) - drop] + add for prefix in PREFIXES]
            observed = lemmas[k * len(PREFIXES) : (k + 1) * len(PREFIXES)]
            general = [morpha.lemma(prefix + ending, tag) for prefix in PREFIXES]
            if observed == changed and general != changed:
                lemma_ending = ending[: len(ending) - drop] + add
                shorter = any(ending.endswith(e) for e in found[state] if len(e) < len(ending))
                if not shorter:
                    found[state][ending] = (lemma_ending, 0 if bare[k] == lemma_ending else 1)
        # Keep only the shortest ending of each family (longer ones are explained by it).
        for state in found:
            for ending in sorted(found[state], key=len):
                if any(ending != e and ending.endswith(e) for e in found[state]):
                    del found[state][ending]
        return found
    finally:
        restore()


_EXOTIC = {"i": "ı", "s": "ſ"}


def kept_letters(forms: dict[str, dict[str, str]]) -> dict[str, dict[str, int]]:
    """Forms whose lemma copies fewer of the word's letters than the two share (step 5)."""
    jobs = []
    for state, table in forms.items():
        for word, lemma in table.items():
            shared = len(word) - _change(word, lemma)[0]
            for k in range(shared):
                if word[k] in _EXOTIC:
                    jobs.append((state, word, shared, k))
    pairs = [(word[:k] + _EXOTIC[word[k]] + word[k + 1 :], _STATE_TAGS[state]) for state, word, _, k in jobs]
    found: dict[str, dict[str, int]] = {"noun": {}, "verb": {}}
    for (state, word, shared, k), (probe, _), lemma in zip(jobs, pairs, run_morpha(pairs), strict=True):
        copied = lemma is not None and lemma[k : k + 1] == probe[k]
        if not copied:
            found[state][word] = min(k, found[state].get(word, shared))
    return found


def write(
    path: Path,
    forms: dict[str, dict[str, str]],
    ends: dict[str, dict[str, tuple[str, int]]],
    stems: frozenset[str],
    kept: dict[str, dict[str, int]],
) -> None:
    lines = []
    for word in sorted(set(forms["noun"]) | set(forms["verb"])):
        noun, verb = forms["noun"].get(word), forms["verb"].get(word)
        extra = {state: f"\t{kept[state][word]}" if word in kept[state] else "" for state in kept}
        if noun is not None and noun == verb and extra["noun"] == extra["verb"]:
            lines.append(f"both\t{word}\t{noun}{extra['noun']}")
        else:
            for state, lemma in (("noun", noun), ("verb", verb)):
                if lemma is not None:
                    lines.append(f"{state}\t{word}\t{lemma}{extra[state]}")
    for ending in sorted(set(ends["noun"]) | set(ends["verb"])):
        noun, verb = ends["noun"].get(ending), ends["verb"].get(ending)
        if noun is not None and noun == verb:
            lines.append(f"both{'*+'[noun[1]]}\t{ending}\t{noun[0]}")
        else:
            for state, rule in (("noun", noun), ("verb", verb)):
                if rule is not None:
                    lines.append(f"{state}{'*+'[rule[1]]}\t{ending}\t{rule[0]}")
    lines += [f"stem\t{stem}" for stem in sorted(stems)]
    with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as fh:
        fh.write("".join(f"{line}\n" for line in lines).encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=Path(data_path("morpha", "morpha-3.6.0.tsv.gz")))
    args = parser.parse_args()
    words = vocabulary()
    probes = probe_words(words)
    others = sorted({word.lower() for word in words} - set(probes) - {""})
    print(f"{len(probes):,} probe words, {len(others):,} other words", flush=True)
    stems = undoubling_stems(probes)
    print(f"{len(stems):,} undoubling stems", flush=True)
    empty = {"noun": {}, "verb": {}}
    forms = differences(probes, morpha._Tables(empty, {"noun": {}, "verb": {}}, stems))
    print(f"{len(forms['noun']):,} noun and {len(forms['verb']):,} verb forms differ from the rules", flush=True)
    ends = endings(forms, morpha._Tables(empty, {"noun": {}, "verb": {}}, stems))
    print(f"endings: {ends}", flush=True)
    forms = differences(probes, morpha._Tables({"noun": {}, "verb": {}}, ends, stems))
    whole = differences(others, morpha._Tables(forms, ends, stems))
    for state in forms:
        forms[state].update(whole[state])
    print(f"{len(forms['noun']):,} noun and {len(forms['verb']):,} verb forms listed", flush=True)
    check = differences(probes + others, morpha._Tables(forms, ends, stems))
    assert not check["noun"] and not check["verb"], check
    kept = kept_letters(forms)
    print(f"kept letters: {kept}", flush=True)
    write(args.out, forms, ends, stems, kept)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
