"""Signature examples in the README and the docs say what the code prints, and do not go stale.

Every ``metric|key:value|...|v:...`` in ``README.md`` and ``docs/**/*.md`` is checked against the
signature the metric gives today, on a two-image corpus: the same fields in the same order, each
with the value shown (``nrefs`` aside; a value written with a ``<placeholder>`` part, such as
``model:nneval-v2-<digest>``, matches any text there). The version is written ``v:<version>`` (``...``
in a doctest, which checks the real one): a number would be out of date at the next release.
"""

from __future__ import annotations

import re
import warnings
from functools import cache
from pathlib import Path

import pytest

from capeval.registry import list_metrics
from capeval.signature import Signature

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: ``metric|key:value|...|v:version`` (the generic ``metric|field:value|...`` of docs/architecture.md aside).
EXAMPLE = re.compile(r"\b([a-z][a-z0-9-]*)((?:\|[a-z]+:[^|\s`'\"]+)*)\|v:([^\s`|'\")]+)")

CANDIDATES = ["a dog runs on the grass", "a cat sleeps on a bed"]
REFERENCES = [["A dog running in a field.", "The dog is on the grass."], ["A cat is sleeping.", "A cat on a bed."]]


def _examples() -> list[tuple[str, int, str]]:
    found = []
    for path in DOCS:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in EXAMPLE.finditer(line):
                if match.group(1) in list_metrics():
                    found.append((f"{path.relative_to(ROOT)}:{lineno}", match.group(1), match.group(0)))
    return [(where, i, text) for i, (where, _, text) in enumerate(found)]


EXAMPLES = _examples()


@cache
def _live(metric: str, parser: str | None = None) -> Signature:
    from capeval import get_metric

    options = {} if parser is None else {"parser": parser}
    if metric in ("spice", "spider") and parser is None:
        from tests.spice.grammar_fixture import default_grammar

        default_grammar()  # the exact parser's grammar, or a skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nneval-v2 on two images, say
        try:
            return get_metric(metric, **options).score(candidates=CANDIDATES, references=REFERENCES).signature
        except ImportError as exc:
            pytest.skip(f"{metric} cannot score here: {exc}")


def test_the_docs_have_signature_examples() -> None:
    metrics = {Signature.parse(text).metric for _, _, text in EXAMPLES}
    assert {"bleu", "cider-d", "meteor", "spice", "wmd", "nneval"} <= metrics


@pytest.mark.parametrize(("where", "index", "text"), EXAMPLES, ids=[f"{w}" for w, _, _ in EXAMPLES])
def test_signature_example_matches_the_code(where: str, index: int, text: str) -> None:
    shown = Signature.parse(text)
    assert shown.version in ("<version>", "..."), (
        f"{where}: write the version of a signature example as v:<version>, not v:{shown.version}"
    )
    # SPICE's opt-in spaCy parser has signatures of its own (parser:spacy-...)
    spacy = shown.metric in ("spice", "spider") and dict(shown.fields).get("parser", "").startswith("spacy-")
    live = _live(shown.metric, "spacy" if spacy else None)
    assert [k for k, _ in shown.fields] == [k for k, _ in live.fields], f"{where}: {text} vs {live}"
    for (key, value), (_, actual) in zip(shown.fields, live.fields, strict=True):
        if key == "nrefs":
            continue
        pattern = ".+".join(re.escape(part) for part in re.split(r"<[^>]*>", value))
        assert re.fullmatch(pattern, actual), f"{where}: {key}:{value} in the docs, {key}:{actual} from the code"
