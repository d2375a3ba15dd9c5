"""The englishPCFG parser against CoreNLP 3.6.0's trees (official pipeline outputs)."""

from __future__ import annotations

import json
import pickle
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.spice.grammar_fixture import pcfg_grammar, pcfg_parser  # noqa: F401 - fixtures

from capeval.metrics.spice.corenlp.chart import NODE_BINARY, NODE_TAG, NODE_UNARY
from capeval.metrics.spice.corenlp.grammar import Grammar
from capeval.metrics.spice.corenlp.parser import PCFGParser, basic_category, final_label, render_tree

DATA = Path(__file__).parents[1] / "data" / "spice" / "corenlp_pcfg"

#: Sentences (CoreNLP 3.6.0 tokens) and the trees the official pipeline gives them. The first
#: five have exact ties between candidates at some chart vertex: CoreNLP takes the first
#: candidate in its enumeration order (smallest split first), and any other choice changes the
#: tree. The sixth is one where CoreNLP's tolerance-based ``getBestParse`` would differ.
OFFICIAL = [
    (
        "man man man man man man",
        "(ROOT (FRAG (NP (NN man) (NN man)) (NP (NN man) (NN man) (NN man) (NN man))))",
    ),
    (
        "Lots and lots and lots of very colorful ties",
        "(ROOT (NP (NP (NP (NNS Lots)) (CC and) (NP (NNS lots) (CC and) (NNS lots))) (PP (IN of) (NP (ADJP (RB "
        "very) (JJ colorful)) (NNS ties)))))",
    ),
    (
        "A person on a horse on a field with a building in the background .",
        "(ROOT (NP (NP (DT A) (NN person)) (PP (IN on) (NP (DT a) (NN horse))) (PP (IN on) (NP (NP (DT a) (NN "
        "field)) (PP (IN with) (NP (NP (DT a) (NN building)) (PP (IN in) (NP (DT the) (NN background))))))) (. .)))",
    ),
    (
        "A group of people with umbrellas on a street .",
        "(ROOT (NP (NP (DT A) (NN group)) (PP (IN of) (NP (NNS people))) (PP (IN with) (NP (NP (NNS umbrellas)) "
        "(PP (IN on) (NP (DT a) (NN street))))) (. .)))",
    ),
    (
        "A pelican on the shore near a body of water .",
        "(ROOT (NP (NP (DT A) (NN pelican)) (PP (IN on) (NP (DT the) (NN shore))) (PP (IN near) (NP (NP (DT a) "
        "(NN body)) (PP (IN of) (NP (NN water))))) (. .)))",
    ),
    (
        "Three horses on a green pasture with an old building in the background .",
        "(ROOT (NP (NP (CD Three) (NNS horses)) (PP (IN on) (NP (NP (DT a) (JJ green) (NN pasture)) (PP (IN with) "
        "(NP (DT an) (JJ old) (NN building))))) (PP (IN in) (NP (DT the) (NN background))) (. .)))",
    ),
    # no parse at all: the flood re-parse
    (".", "(ROOT (INTJ (UH .)))"),
    ("!", "(ROOT (INTJ (UH !)))"),
    ("man", "(ROOT (INTJ (UH man)))"),
    # NP-TMP survives the label stripping
    (
        "some bicycles and a scooter are parked nearby each other",
        "(ROOT (S (NP (NP (DT some) (NNS bicycles)) (CC and) (NP (DT a) (NN scooter))) (VP (VBP are) (VP (VBN "
        "parked) (ADVP (RB nearby)) (NP-TMP (DT each) (JJ other))))))",
    ),
    # the lexicon sees "gray", "color", "Sunday", "neighborhood", "theater"; the leaves keep the tokens
    (
        "A grey colour sofa on sunday in the neighbourhood theatre .",
        "(ROOT (NP (NP (DT A) (JJ grey) (NN colour) (NN sofa)) (PP (IN on) (NP (NNP sunday))) (PP (IN in) (NP (DT "
        "the) (NN neighbourhood) (NN theatre))) (. .)))",
    ),
    (
        "A man 's bike is n't red ; it 's `` blue '' -LRB- mostly -RRB- .",
        "(ROOT (S (S (NP (NP (DT A) (NN man) (POS 's)) (NN bike)) (VP (VBZ is) (RB n't) (ADJP (JJ red)))) (: ;) (S "
        "(NP (PRP it)) (VP (VBZ 's) (ADJP (`` ``) (JJ blue) ('' '')) (PRN (-LRB- -LRB-) (ADVP (RB mostly)) (-RRB- "
        "-RRB-)))) (. .)))",
    ),
    ("UNK UNK-LC .", "(ROOT (S (NP (NNP UNK)) (VP (VBZ UNK-LC)) (. .)))"),
    ("$ .", "(ROOT (NP (FW $) (. .)))"),
    ("Yes ...", "(ROOT (NP (NNP Yes) (: ...)))"),
    (
        "The 1950s-era car costs $ 5,000 and 3/4 of it is rust -- really .",
        "(ROOT (S (NP (DT The) (JJ 1950s-era) (NN car)) (VP (VBZ costs) (NP ($ $) (CD 5,000)) (NP (NP (QP (CC and) "
        "(CD 3/4))) (PP (IN of) (NP (PRP it))) (VP (VBZ is) (NP (NN rust)) (: --) (FRAG (ADVP (RB really)))))) (. .)))",
    ),
]


def _golden() -> list[dict[str, Any]]:
    with open(DATA / "golden_trees.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


# -- labels and post-processing (no grammar needed) ----------------------------------------------


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("NP^S-B", "NP"),
        ("S^ROOT-v-G", "S"),
        ("VP^S-VBG-v", "VP"),
        ("NN^NP", "NN"),
        ("-LRB-^PRN", "-LRB-"),
        ("-RRB-", "-RRB-"),
        ("PRP$^NP", "PRP$"),
        ("#^QP", "#"),
        ("RB^ADVP^U", "RB"),
        ("NN-TMP^NP", "NN"),
        ("NP-TMP^ROOT-B", "NP"),
        ("ROOT", "ROOT"),
        (".$$.", ".$$."),
        ("--", "-"),
        ("``", "``"),
        ("=X=Y", "=X=Y"),
        ("=X=Y^Z", "=X=Y"),
        ("S|x", "S"),
        ("A~b", "A"),
        ("A_b", "A"),
        ("A[b]", "A"),
    ],
)
def test_basic_category(label: str, expected: str) -> None:
    assert basic_category(label) == expected


def test_final_label_keeps_tmp_on_phrases_only() -> None:
    assert final_label("NP-TMP^ROOT-B", preterminal=False) == "NP-TMP"
    assert final_label("NP-TMP", preterminal=False) == "NP-TMP"
    assert final_label("NN-TMP^NP", preterminal=True) == "NN"
    assert final_label("NP^S-B", preterminal=False) == "NP"


def _rows_from_binarized(tree: str) -> tuple[list[list[int]], list[str], list[str]]:
    """Preorder rows, state names and words of a binarized tree written in brackets."""
    tokens = re.findall(r"\(|\)|[^\s()]+", tree)
    states: list[str] = []
    words: list[str] = []
    rows: list[list[int]] = []

    def node(pos: int) -> int:  # returns the position after the node
        assert tokens[pos] == "("
        label = tokens[pos + 1]
        if label not in states:
            states.append(label)
        row = [states.index(label), len(words), 0, 0]
        rows.append(row)
        pos += 2
        if tokens[pos] != "(":  # a preterminal
            words.append(tokens[pos])
            row[2], row[3] = len(words), NODE_TAG
            return pos + 2
        kids = 0
        while tokens[pos] == "(":
            pos = node(pos)
            kids += 1
        row[2] = len(words)
        row[3] = NODE_BINARY if kids == 2 else NODE_UNARY
        return pos + 1

    node(0)
    return rows, states, words


def test_render_debinarizes_removes_the_boundary_and_strips_labels() -> None:
    # the example of the specification: "a man riding a bike down the street", as CoreNLP binarizes it
    binarized = (
        "(ROOT (FRAG-v (@NodeSet--765238796 (NP^FRAG-B (@NodeSet-1249951373 (DT^NP a) (@NP^FRAG-B|NN^NP_ "
        "(NN^NP man)))) (@FRAG-v|S-U-v-G_ (S-U-v-G (VP^S-VBG-v (@NodeSet-39283948 (@VP^S-VBG-v|VBG^VP_NP^VP-B> "
        "(@VP^S-VBG-v|VBG^VP_ (VBG^VP riding)) (NP^VP-B (@NodeSet-2042193166 (DT^NP a) (@NP^VP-B|NN^NP_ "
        "(NN^NP bike))))) (ADVP^VP (@NodeSet--1618050325 (@ADVP^VP|RB^ADVP_ (RB^ADVP down)) (NP^ADVP-B "
        "(@NodeSet-922613998 (DT^NP the) (@NP^ADVP-B|NN^NP_ (NN^NP street)))))))))))) (.$$. .$.))"
    )
    rows, states, words = _rows_from_binarized(binarized)
    assert words[-1] == ".$."
    preterminal = {states[r[0]] for r in rows if r[3] == NODE_TAG}
    labels = [final_label(s, preterminal=s in preterminal) for s in states]
    spliced = ["@" in s for s in states]
    tree = render_tree(rows, words[:-1], labels, spliced)
    assert tree == (
        "(ROOT (FRAG (NP (DT a) (NN man)) (S (VP (VBG riding) (NP (DT a) (NN bike)) (ADVP (RB down) "
        "(NP (DT the) (NN street)))))))"
    )


def test_render_refuses_rows_that_are_no_tree() -> None:
    with pytest.raises(ValueError, match="node kind"):
        render_tree([[0, 0, 1, 7]], ["a"], ["X"], [False])
    with pytest.raises(ValueError, match="one tree"):
        render_tree([[0, 0, 1, NODE_TAG], [0, 1, 2, NODE_TAG]], ["a", "b"], ["X"], [False])


# -- the parser -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "tree"), OFFICIAL, ids=[s[:40] for s, _ in OFFICIAL])
def test_official_trees(sentence: str, tree: str, pcfg_parser: PCFGParser) -> None:  # noqa: F811
    assert pcfg_parser.parse(sentence.split(" ")) == tree


def test_golden_trees(pcfg_parser: PCFGParser) -> None:  # noqa: F811
    golden = _golden()
    assert len(golden) > 300
    wrong = [(g["words"], g["tree"], t) for g in golden if (t := pcfg_parser.parse(g["words"])) != g["tree"]]
    assert not wrong, wrong[:3]


@pytest.mark.parametrize(
    ("words", "tree"),
    [
        (["a", ".$.", "b"], "(X (XX a) (XX .$.) (XX b))"),
        ([".$."], "(X (XX .$.))"),
        ([".$.", ".$."], "(X (XX .$.) (XX .$.))"),
    ],
)
def test_sentences_without_any_parse(words: list[str], tree: str, pcfg_parser: PCFGParser) -> None:  # noqa: F811
    # CoreNLP's tokenizer never makes the boundary word ".$." a token, but given one (tokens fed to
    # CoreNLP 3.6.0's ParserAnnotator directly), the recovery re-parse leaves it its only tag, no
    # parse exists, and the annotator falls back to this tree
    assert pcfg_parser.parse(words) == tree


def test_bad_input(pcfg_parser: PCFGParser) -> None:  # noqa: F811
    with pytest.raises(ValueError, match="empty sentence"):
        pcfg_parser.parse([])
    with pytest.raises(ValueError, match="token 1"):
        pcfg_parser.parse(["a", ""])
    with pytest.raises(ValueError, match="token 0"):
        pcfg_parser.parse([None, "man"])  # type: ignore[list-item]


def test_cache(pcfg_grammar: Grammar) -> None:  # noqa: F811
    parser = PCFGParser(pcfg_grammar, cache_size=2)
    first = parser.parse(("a", "man"))
    assert parser.parse(["a", "man"]) is first  # a list or a tuple: the same sentence
    parser.parse(["a", "dog"])
    parser.parse(["a", "cat"])
    assert len(parser._cache) == 2 and ("a", "man") not in parser._cache
    assert parser.parse_many([["a", "man"], ["a", "cat"]])[0] == first


def test_threads_share_a_parser(pcfg_grammar: Grammar) -> None:  # noqa: F811
    parser = PCFGParser(pcfg_grammar, cache_size=0)
    cases = [(s.split(" "), t) for s, t in OFFICIAL[:6]]
    errors: list[str] = []

    def work() -> None:
        for words, tree in cases:
            if parser.parse(words) != tree:
                errors.append(" ".join(words))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def _parse_in_worker(args: tuple[PCFGParser, list[str]]) -> str:
    parser, words = args
    return parser.parse(words)


def test_pickles_by_path_and_by_value(pcfg_grammar: Grammar, tmp_path: Path) -> None:  # noqa: F811
    words, tree = OFFICIAL[0][0].split(" "), OFFICIAL[0][1]
    path = tmp_path / "g.npz"
    pcfg_grammar.save(path)
    by_path = PCFGParser(Grammar.load(path))
    small = pickle.dumps(by_path)
    assert len(small) < 2000
    assert pickle.loads(small).parse(words) == tree
    in_memory = PCFGParser(Grammar(pcfg_grammar.to_arrays(), pcfg_grammar.sha256))
    assert pickle.loads(pickle.dumps(in_memory)).parse(words) == tree
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(_parse_in_worker, [(by_path, words), (in_memory, words)])) == [tree, tree]


def test_unpickling_checks_the_grammar_file(pcfg_grammar: Grammar, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "g.npz"
    pcfg_grammar.save(path)
    state = pickle.dumps(PCFGParser(Grammar.load(path)))
    other = Grammar(pcfg_grammar.to_arrays(), "0" * 64)
    other.save(path)
    with pytest.raises(ValueError, match="changed"):
        pickle.loads(state)


def test_the_precompiled_kernels_cover_parsing(pcfg_parser: PCFGParser) -> None:  # noqa: F811
    pytest.importorskip("numba")
    from capeval.engines import precompile
    from capeval.metrics.spice.corenlp import chart

    precompile._spice_parser()  # what the wheel build runs for the parser
    before = (list(chart.inside.signatures), list(chart.best_tree.signatures))
    assert all(before)
    pcfg_parser.parse(["a", "man", "rides", "a", "horse"])
    pcfg_parser.parse(["."])  # the recovery re-parse too
    assert (list(chart.inside.signatures), list(chart.best_tree.signatures)) == before
