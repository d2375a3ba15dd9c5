"""A lemmatiser that behaves like the one official SPICE sees (CoreNLP's Morpha), driven by PTB tags.

What matters for SPICE (observed in official output): only plural nouns (``NNS``,
``NNPS``) and verbs (``VB*``) change; everything else, comparatives, superlatives and
participial adjectives included ("larger", "closest", "striped", "fenced"), is only
lower-cased. Plural-only nouns stay as they are ("pants", "jeans", "scissors"), "people"
stays "people", irregular forms come from WordNet 3.0's exception lists.

The exception lists and the word index used to choose between candidate stems are
WordNet 3.0 data as shipped in the spaCy English model (``lemma_exc``, ``lemma_index``);
the choice logic is written for Morpha-like results (``riding`` -> ``ride``, not ``rid``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache

__all__ = ["MorphaLemmatizer"]

#: Nouns Morpha keeps in the plural (its plural-only list; "glasses" is not on it).
PLURAL_ONLY_NOUNS = frozenset(
    """pants jeans shorts goggles clothes scissors trousers tights overalls pyjamas pajamas binoculars leggings
    slacks people police cattle briefs knickers panties pliers tongs tweezers shears sunglasses headphones
    earphones""".split()
)

#: Forms of "be" and "have" (Morpha maps them before anything else; includes clitics).
_AUX_LEMMAS = {
    "is": "be", "are": "be", "was": "be", "were": "be", "am": "be", "been": "be", "being": "be", "be": "be",
    "'s": "be", "'re": "be", "'m": "be", "has": "have", "had": "have", "having": "have", "'ve": "have",
}  # fmt: skip

_VOWELS = frozenset("aeiou")


def _cvc(stem: str) -> bool:
    """Consonant-vowel-consonant ending (``rid``, ``hop``), where an ``e`` was probably dropped."""
    return (
        len(stem) >= 3
        and stem[-1] not in _VOWELS
        and stem[-1] not in "wxy"
        and stem[-2] in _VOWELS
        and stem[-3] not in _VOWELS
    )


class MorphaLemmatizer:
    """Tag-driven lemmatiser.

    Args:
        noun_exceptions: irregular plural -> base forms (first one wins).
        verb_exceptions: irregular verb form -> base forms.
        noun_index: known noun lemmas.
        verb_index: known verb lemmas.

    Example:
        >>> lem = MorphaLemmatizer({"men": ["man"]}, {"ran": ["run"]}, {"dog"}, {"ride", "rid", "run"})
        >>> [lem("dogs", "NNS"), lem("men", "NNS"), lem("riding", "VBG"), lem("ran", "VBD"), lem("Larger", "JJR")]
        ['dog', 'man', 'ride', 'run', 'larger']
    """

    def __init__(
        self,
        noun_exceptions: Mapping[str, Sequence[str]],
        verb_exceptions: Mapping[str, Sequence[str]],
        noun_index: Collection[str],
        verb_index: Collection[str],
    ) -> None:
        self.noun_exceptions = noun_exceptions
        self.verb_exceptions = verb_exceptions
        self.noun_index = frozenset(noun_index)
        self.verb_index = frozenset(verb_index)
        self._cached = lru_cache(maxsize=200_000)(self._lemma)

    def __call__(self, word: str, tag: str) -> str:
        """Lemma of ``word`` under PTB tag ``tag``."""
        return self._cached(word, tag)

    def _lemma(self, word: str, tag: str) -> str:
        lower = word.lower()
        if tag in ("NNS", "NNPS"):
            return self._noun(lower)
        if tag.startswith("VB"):
            return self._verb(lower, tag)
        if tag.startswith("NNP"):
            return word
        return lower

    def _noun(self, word: str) -> str:
        if word in PLURAL_ONLY_NOUNS or len(word) <= 2:
            return word
        exc = self.noun_exceptions.get(word)
        if exc:
            return exc[0]
        candidates: list[str] = []
        if word.endswith("ies") and len(word) > 4:
            candidates.append(word[:-3] + "y")
        if word.endswith("ves"):
            candidates += [word[:-3] + "f", word[:-3] + "fe"]
        if word.endswith("men"):
            candidates.append(word[:-3] + "man")
        if word.endswith("s") and not word.endswith("ss"):
            candidates.append(word[:-1])
        if word.endswith(("ses", "xes", "zes", "ches", "shes")):
            candidates.append(word[:-2])
        for cand in candidates:
            if cand in self.noun_index:
                return cand
        if word.endswith("men"):
            return word[:-3] + "man"
        if word.endswith(("sses", "xes", "zes", "ches", "shes")):
            return word[:-2]
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith("s") and not word.endswith(("ss", "us", "is")):
            return word[:-1]
        return word

    def _verb(self, word: str, tag: str) -> str:
        if word in _AUX_LEMMAS:
            return _AUX_LEMMAS[word]
        exc = self.verb_exceptions.get(word)
        if exc:
            return exc[0]
        index = self.verb_index
        if tag in ("VB", "VBP") and word in index:
            return word  # base form ("swing", "sing", "need"): no suffix to strip
        suffixes = {"VBG": ("ing",), "VBD": ("ed",), "VBN": ("ed",)}.get(tag, ("ing", "ed"))
        for suffix in suffixes:
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                stem = word[: -len(suffix)]
                if suffix == "ed" and stem.endswith("i"):
                    if stem[:-1] + "y" in index:
                        return stem[:-1] + "y"
                    if stem + "e" in index:
                        return stem + "e"
                # An "e" was probably dropped after consonant-vowel-consonant ("riding": ride, not rid);
                # otherwise the bare stem wins when both are verbs ("swinging": swing, not swinge).
                ordered = [stem + "e", stem] if _cvc(stem) else [stem, stem + "e"]
                if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
                    ordered.insert(0, stem[:-1])
                for cand in ordered:
                    if cand in index:
                        return cand
                return stem[:-1] if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz" else stem
        if word.endswith("s") and not word.endswith("ss") and len(word) > 2 and tag not in ("VBG", "VBD", "VBN"):
            candidates = []
            if word.endswith("ies"):
                candidates.append(word[:-3] + "y")
            candidates.append(word[:-1])
            if word.endswith("es"):
                candidates.append(word[:-2])
            for cand in candidates:
                if cand in index:
                    return cand
            if word.endswith(("sses", "xes", "zes", "ches", "shes")):
                return word[:-2]
            if word.endswith("ies"):
                return word[:-3] + "y"
            return word[:-1]
        return word
