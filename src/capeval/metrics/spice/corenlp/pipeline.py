"""SPICE's CoreNLP 3.6.0 pipeline, caption by caption: every stage, as official SPICE 1.0 computes it.

For each caption the pipeline gives what the official one gives (the schema of the oracle's
``SpiceStages``)::

    {"caption": "A dog runs.",
     "sentences": [{"tokens": [["A", "DT", "a"], ["dog", "NN", "dog"], ["runs", "VBZ", "run"], [".", ".", "."]],
                    "tree": "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs)) (. .)))",
                    "basic": [["det", 2, 1], ["nsubj", 3, 2], ["punct", 3, 4], ["root", 0, 3]],
                    "ccprocessed": [["det", 2, 1], ["nsubj", 3, 2], ["punct", 3, 4], ["root", 0, 3]]}]}

The stages:

1. the text as SPICE receives it: ``tokenizer="none"`` takes the caption as given (the jar run on its
   own); ``tokenizer="ptb"`` first does what ``COCOEvalCap`` does (capeval's
   :class:`~capeval.tokenizers.ptb.PTBTokenizer`: PTB 3.4.1 tokens, lower-cased, punctuation removed,
   joined with spaces), over the whole batch as one stream as ``COCOEvalCap`` does;
2. tokens and sentences: :func:`capeval.tokenizers.corenlp.corenlp_sentences` (CoreNLP 3.6.0
   ``tokenize,ssplit``);
3. per sentence, the Penn tree of the exhaustive PCFG parser (``parser(words) -> str``);
4. tags: the tree's preterminals, in order (SPICE runs no tagger); lemmas: Morpha's
   (``lemmatizer(word, tag) -> str``);
5. UD v1 ``basic`` and ``ccprocessed`` dependencies of the tree (``basic(tree)``,
   ``ccprocessed(tree)`` -> ``[(relation, governor, dependent), ...]``, positions 1-based, the root
   as ``("root", 0, i)``), in CoreNLP's order.

Each component can be given to the constructor (any callable; ``None`` leaves its fields ``null``).
By default the pipeline uses capeval's own modules (:mod:`.parser` with the grammar of
:func:`.sources.load_grammar`, :mod:`.morpha`, :mod:`.dependencies`, :mod:`.ccprocessed`); a module
that this version of capeval does not have yet leaves its fields ``null``
(:attr:`CoreNLPPipeline.stages` says which are computed). Results are cached by text, so repeated
captions cost nothing.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from capeval.tokenizers.corenlp import corenlp_sentences

__all__ = ["DEFAULT", "TOKENIZERS", "CoreNLPPipeline", "component_available", "preterminal_tags"]

Parser = Callable[[list[str]], str]
Lemmatizer = Callable[[str, str], str]
Converter = Callable[[str], Iterable[Sequence[Any]]]

#: How captions reach SPICE: as given, or after COCOEvalCap's PTB tokenizer.
TOKENIZERS = ("none", "ptb")
_PACKAGE = "capeval.metrics.spice.corenlp"
#: The capeval modules of the stages that are not the tokenizer (module, attribute).
_MODULES = {
    "parser": ("parser", "PCFGParser"),
    "lemmatizer": ("morpha", "lemma"),
    "basic": ("dependencies", "basic"),
    "ccprocessed": ("ccprocessed", "ccprocessed"),
}


class _Default:
    """The default component (capeval's own module, when this version of capeval has it)."""

    def __repr__(self) -> str:
        return "DEFAULT"


#: Use capeval's own module for a stage (the constructor's default).
DEFAULT: Any = _Default()


def component_available(stage: str) -> bool:
    """Whether capeval's own module for ``stage`` (``parser``, ``lemmatizer``, ``basic``,
    ``ccprocessed``) is present; checked without importing it."""
    module, _attribute = _MODULES[stage]
    return importlib.util.find_spec(f"{_PACKAGE}.{module}") is not None


def _own(stage: str) -> Any:
    module, attribute = _MODULES[stage]
    return getattr(importlib.import_module(f"{_PACKAGE}.{module}"), attribute)


#: The parsers of this process on capeval's grammar, by where the grammar came from (see
#: :func:`_shared_parser`).
_PARSERS: dict[tuple[Any, ...], tuple[Any, Any]] = {}
_PARSERS_LOCK = threading.Lock()


def _shared_parser(grammar: str | os.PathLike[str] | None, download: bool) -> tuple[Any, Any]:
    """capeval's PCFG parser on the grammar of ``load_grammar(grammar)``, and that grammar, built
    once per process.

    Every pipeline of a process (one per unpickled SPICE metric, e.g. per task on a Dask worker)
    shares it, so the grammar is read and the parser's tables are built once. The key is the
    explicit copy (argument or ``$CAPEVAL_SPICE_GRAMMAR``), the converted grammar's path in the
    cache (which names the grammar's sha256), and the parser class and grammar loader in use.
    """
    from capeval.metrics.spice.corenlp import sources

    explicit = os.fspath(grammar) if grammar is not None else os.environ.get(sources.ENV_GRAMMAR) or ""
    where = os.path.abspath(os.path.expanduser(explicit)) if explicit else ""
    parser_class, load = _own("parser"), sources.load_grammar
    key = (where, str(sources.converted_grammar_path()), parser_class, load)
    with _PARSERS_LOCK:
        built = _PARSERS.get(key)
        if built is None:
            loaded = load(grammar, download=download)
            built = _PARSERS[key] = (parser_class(loaded), loaded)
    return built


def preterminal_tags(tree: str, words: Sequence[str]) -> list[str]:
    """The tags of ``words`` in a Penn tree string (its preterminals, in order).

    The words are the tree's leaves, so they are matched as they are (a word may contain any
    character but a space).

    Raises:
        ValueError: the tree's leaves are not ``words``.
    """
    tags = []
    pos = 0
    for index, word in enumerate(words):
        match = re.compile(r"\(([^ ()]+) " + re.escape(word) + r"\)").search(tree, pos)
        if match is None:
            raise ValueError(f"the tree has no leaf {word!r} (word {index + 1}) after position {pos}: {tree!r}")
        tags.append(match.group(1))
        pos = match.end()
    return tags


class CoreNLPPipeline:
    """Official SPICE 1.0's CoreNLP 3.6.0 pipeline without Java, caption by caption.

    Args:
        tokenizer: ``"none"`` (the caption as given, like the jar run on its own) or ``"ptb"``
            (COCOEvalCap's PTB tokenizer first, as every published COCO SPICE number).
        parser: ``words -> Penn tree``; default capeval's PCFG parser with the grammar of
            :func:`capeval.metrics.spice.corenlp.sources.load_grammar` (loaded at the first parse).
        lemmatizer: ``(word, tag) -> lemma``; default capeval's Morpha.
        basic: ``tree -> [(relation, governor, dependent), ...]``; default capeval's UD v1 converter.
        ccprocessed: the same for CCprocessed dependencies; default capeval's.
        grammar: for the default parser: an explicit copy of the grammar (see ``load_grammar``).
        download: for the default parser: allow the grammar's one-time download.
        cache_size: captions whose stages are kept in memory (most recent first); 0 keeps none.

    ``None`` for a component leaves its fields ``null`` (also when capeval's own module is not
    available; see :attr:`stages`).

    Example:
        >>> pipeline = CoreNLPPipeline(parser=None, lemmatizer=None, basic=None, ccprocessed=None)
        >>> pipeline.parse("Two dogs. Run!")["sentences"][1]
        {'tokens': [['Run', None, None], ['!', None, None]], 'tree': None, 'basic': None, 'ccprocessed': None}
    """

    def __init__(
        self,
        *,
        tokenizer: str = "none",
        parser: Parser | None = DEFAULT,
        lemmatizer: Lemmatizer | None = DEFAULT,
        basic: Converter | None = DEFAULT,
        ccprocessed: Converter | None = DEFAULT,
        grammar: str | os.PathLike[str] | None = None,
        download: bool = True,
        cache_size: int = 100_000,
    ) -> None:
        if tokenizer not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {', '.join(TOKENIZERS)}, not {tokenizer!r}")
        if not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be a non-negative int, not {cache_size!r}")
        self.tokenizer = tokenizer
        self._grammar = grammar
        self._download = download
        self._components: dict[str, Any] = {}
        self._pending: set[str] = set()
        #: Stages served by capeval's own modules (the converters then get the sentence's index).
        self._own_stages: set[str] = set()
        for stage, given in (("parser", parser), ("lemmatizer", lemmatizer), ("basic", basic),
                             ("ccprocessed", ccprocessed)):  # fmt: skip
            if given is DEFAULT:
                if component_available(stage):
                    self._pending.add(stage)  # imported (and the grammar loaded) at first use
                else:
                    self._components[stage] = None
            else:
                if given is not None and not callable(given):
                    raise TypeError(f"{stage} must be callable or None, not {type(given).__name__}")
                self._components[stage] = given
        self._cache: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._cache_size = cache_size
        self._grammar_sha256: str | None = None

    @property
    def stages(self) -> dict[str, bool]:
        """Which stages are computed (``False``: their fields are ``null``)."""
        return {
            stage: stage in self._pending or self._components.get(stage) is not None
            for stage in ("parser", "lemmatizer", "basic", "ccprocessed")
        }

    def _component(self, stage: str) -> Any:
        if stage in self._pending:
            if stage == "parser":
                parser, grammar = _shared_parser(self._grammar, self._download)
                self._grammar_sha256 = str(getattr(grammar, "sha256", "") or "")
                self._components[stage] = parser.parse
            else:
                self._components[stage] = _own(stage)
            self._own_stages.add(stage)
            self._pending.discard(stage)
        return self._components[stage]

    def _sentence(self, words: list[str], index: int = 0) -> dict[str, Any]:
        parser = self._component("parser")
        tree = parser(list(words)) if parser is not None else None
        if tree is not None and not isinstance(tree, str):
            raise TypeError(f"the parser returned {type(tree).__name__}, not a Penn tree string")
        tags: list[str | None] = list(preterminal_tags(tree, words)) if tree is not None else [None] * len(words)
        lemmatizer = self._component("lemmatizer")
        tokens = [
            [word, tag, lemmatizer(word, tag) if lemmatizer is not None and tag is not None else None]
            for word, tag in zip(words, tags, strict=True)
        ]
        result: dict[str, Any] = {"tokens": tokens, "tree": tree}
        for stage in ("basic", "ccprocessed"):
            convert = self._component(stage)
            if convert is None or tree is None:
                result[stage] = None
                continue
            if stage in self._own_stages:
                # CoreNLP's word order in the graph depends on the sentence's index in the caption,
                # and its lemmas decide one rare re-attachment.
                edges = convert(tree, sentence_index=index, lemmas=[token[2] for token in tokens])
            else:
                edges = convert(tree)
            result[stage] = [[str(rel), int(gov), int(dep)] for rel, gov, dep in edges]
        return result

    def _sentences(self, text: str) -> list[dict[str, Any]]:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return copy.deepcopy(cached)
        sentences = [self._sentence(words, index) for index, words in enumerate(corenlp_sentences(text))]
        if self._cache_size:
            self._cache[text] = sentences
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return copy.deepcopy(sentences)
        return sentences

    def texts(self, captions: Sequence[str]) -> list[str]:
        """The texts SPICE receives for ``captions`` (after COCOEvalCap's tokenizer with ``"ptb"``).

        With ``"ptb"`` the captions are tokenized as one stream, in order, as ``COCOEvalCap`` does
        (a caption's last token can depend on the next caption).
        """
        if isinstance(captions, str):
            raise TypeError("expected a sequence of captions, not a single string")
        captions = list(captions)
        for index, caption in enumerate(captions):
            if not isinstance(caption, str):
                raise TypeError(f"caption {index} is {type(caption).__name__}, expected str")
        if self.tokenizer == "ptb":
            from capeval.tokenizers.ptb import PTBTokenizer

            return PTBTokenizer().tokenize(captions)
        return captions

    def fingerprint(self) -> str:
        """What identifies this pipeline's output, for caches and signatures.

        ``pcfg-<first 16 hex digits of the grammar's sha256>`` (the grammar is loaded for it),
        ``-tok:<tokenizer>``, and the module and name of every component that is not capeval's own.
        """
        parts = []
        for stage in ("parser", "lemmatizer", "basic", "ccprocessed"):
            if stage in self._pending or stage in self._own_stages:
                if stage == "parser":
                    self._component("parser")
                    parts.append(f"pcfg-{(self._grammar_sha256 or '')[:16]}")
                continue
            given = self._components.get(stage)
            name = (
                "none"
                if given is None
                else f"{getattr(given, '__module__', '?')}.{getattr(given, '__qualname__', '?')}"
            )
            parts.append(f"{stage}={name}")
        return "-".join([*parts, f"tok:{self.tokenizer}"])

    def annotate_many(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        """The stages of ``texts`` (what :class:`capeval.metrics.spice.CoreNLPParser` asks for):
        :meth:`parse_batch` without a progress bar."""
        return self.parse_batch(texts)

    def parse(self, caption: str) -> dict[str, Any]:
        """Every stage of one caption: ``{"caption": caption, "sentences": [...]}``.

        With ``tokenizer="ptb"`` the caption is tokenized alone (see :meth:`parse_batch`).
        """
        return next(self.iter_parse([caption]))

    def parse_batch(self, captions: Sequence[str], *, progress: bool = False) -> list[dict[str, Any]]:
        """Every stage of each caption, in order (see :meth:`iter_parse`)."""
        return list(self.iter_parse(captions, progress=progress))

    def iter_parse(self, captions: Sequence[str], *, progress: bool = False) -> Iterator[dict[str, Any]]:
        """Every stage of each caption, one result at a time, in order.

        Args:
            captions: the captions; with ``tokenizer="ptb"`` they are tokenized together first.
            progress: a progress bar on stderr.

        Yields:
            ``{"caption": <the caption as given>, "sentences": [{"tokens", "tree", "basic",
            "ccprocessed"}, ...]}``.
        """
        if isinstance(captions, str):
            raise TypeError("expected a sequence of captions, not a single string")
        captions = list(captions)
        texts = self.texts(captions)
        from tqdm import tqdm

        for caption, text in tqdm(
            zip(captions, texts, strict=True), total=len(texts), disable=not progress, unit="caption"
        ):
            yield {"caption": caption, "sentences": self._sentences(text)}
