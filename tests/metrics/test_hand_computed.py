"""Hand-computed values for metrics without an official oracle (CIDEr, ROUGE-N, ROUGE-S) and edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from capeval.metrics.bleu import BLEU
from capeval.metrics.cider import CIDEr, CIDErD, DocumentFrequencies
from capeval.metrics.rouge import ROUGEL, ROUGEN, ROUGES

CANDS = ["a dog runs", "a cat sleeps"]
REFS = [["a dog runs", "the dog is running"], ["a cat is sleeping"]]


def test_cider_original_by_hand() -> None:
    # Two images: idf(w) = log 2 for words of one image, 0 for words of both ("a", "is").
    # Image 2: unigram cosine 1/2, bigram 1/sqrt(6), trigram 0, 4-gram 0.
    # Image 1: unigrams (1 + 1/sqrt(6))/2, bigrams (1 + 0)/2, trigrams (1 + 0)/2, 4-grams 0.
    result = CIDEr(tokenizer="none").score_tokenized(candidates=CANDS, references=REFS)
    expected_1 = ((1 + 1 / math.sqrt(6)) / 2 + 0.5 + 0.5 + 0) / 4
    expected_2 = (0.5 + 1 / math.sqrt(6)) / 4
    np.testing.assert_allclose(result.item_scores, [expected_1, expected_2], rtol=1e-12)


def test_cider_d_official_values_small() -> None:
    # Values from pycocoevalcap 1.2 Cider() on the same input.
    result = CIDErD(tokenizer="none").score_tokenized(candidates=CANDS, references=REFS)
    np.testing.assert_allclose(result.item_scores, [4.2532717118175, 2.2393023195648936], rtol=0, atol=1e-12)


def test_rouge_n_by_hand() -> None:
    result = ROUGEN(n=1, tokenizer="none").score_tokenized(candidates=CANDS, references=REFS)
    # Image 1: matches 3 ("a dog runs") + 1 ("dog") over 3 + 4 reference unigrams.
    # Image 2: "a", "cat" of 4 reference unigrams.
    np.testing.assert_allclose(result.item_scores, [4 / 7, 2 / 4])
    bigrams = ROUGEN(n=2, tokenizer="none").score_tokenized(candidates=CANDS, references=REFS)
    np.testing.assert_allclose(bigrams.item_scores, [2 / 5, 1 / 3])


def test_rouge_s_by_hand() -> None:
    # "a b c d e f" has skip-bigrams with at most 4 words between: all 15 pairs except (a, f).
    m = ROUGES(tokenizer="none")
    r = m.score_tokenized(candidates=["a b c d e f"], references=[["a b c d e f"]])
    assert r.score == pytest.approx(1.0)
    # Candidate "a f": its only skip-bigram (a, f) has 4 words between -> counted; it matches the
    # reference "a x x x x f" pair (a, f). P = 1/1; reference has 15 - 1 + ... pairs:
    ref = "a x y z w f"
    n_ref_pairs = sum(1 for i in range(6) for j in range(i + 1, min(6, i + 6)))
    r = m.score_tokenized(candidates=["a f"], references=[[ref]])
    p, rec = 1.0, 1 / n_ref_pairs
    assert r.score == pytest.approx((1 + 1.44) * p * rec / (rec + 1.44 * p))
    r0 = ROUGES(max_gap=0, tokenizer="none").score_tokenized(candidates=["a f"], references=[[ref]])
    assert r0.score == 0.0


def test_rouge_l_precision_and_recall_maximised_separately() -> None:
    # P is best against ref 1, R against ref 2 (official quirk).
    cand = "a b c d"
    refs = [["a b x x x x x x x x", "a y"]]
    r = ROUGEL(tokenizer="none").score_tokenized(candidates=[cand], references=refs)
    p, rec = 2 / 4, 1 / 2
    assert r.score == pytest.approx((1 + 1.44) * p * rec / (rec + 1.44 * p))


def test_empty_candidate_is_defined() -> None:
    for metric in (
        BLEU(tokenizer="none"),
        ROUGEL(tokenizer="none"),
        CIDErD(tokenizer="none"),
        CIDEr(tokenizer="none"),
        ROUGEN(tokenizer="none"),
        ROUGES(tokenizer="none"),
    ):
        r = metric.score_tokenized(candidates=["", "a cat"], references=[["a dog"], ["a cat"]])
        assert np.isfinite(r.item_scores).all(), metric.name
        assert r.item_scores[0] <= 1e-6, metric.name


def test_long_caption_rouge_and_cider() -> None:
    long = " ".join(f"word{i % 97}" for i in range(3000))
    for metric in (ROUGEL(tokenizer="none"), CIDErD(tokenizer="none"), BLEU(tokenizer="none")):
        r = metric.score_tokenized(candidates=[long, "a b"], references=[[long, "x"], ["a b"]])
        assert np.isfinite(r.item_scores).all()
    r = ROUGEL(tokenizer="none").score_tokenized(candidates=[long], references=[[long]])
    assert r.score == pytest.approx(1.0)


def test_external_document_frequencies_round_trip(tmp_path: object) -> None:
    train = [["a dog runs", "a dog is running"], ["a cat sleeps"], ["two dogs play"]]
    df = DocumentFrequencies.from_references(train, name="toy")
    assert (df.get("a"), df.get("a dog"), df.get("dog runs"), df.get("unseen"), df.get("")) == (2, 1, 1, 0, 0)
    path = f"{tmp_path}/df.npz"
    df.save(path)
    loaded = DocumentFrequencies.load(path)
    assert loaded.get("a dog") == 1 and loaded.n_documents == 3 and loaded.name == "toy"
    metric = CIDErD(tokenizer="none", df=path)
    result = metric.score_tokenized(candidates=["a dog runs"], references=[["a dog runs fast"]])
    assert "df:toy-3" in str(result.signature)
    # Same df as the evaluated references -> identical to the official corpus mode.
    same = CIDErD(tokenizer="none", df=DocumentFrequencies.from_references(REFS))
    official = CIDErD(tokenizer="none")
    np.testing.assert_allclose(
        same.score_tokenized(candidates=CANDS, references=REFS).item_scores,
        official.score_tokenized(candidates=CANDS, references=REFS).item_scores,
    )


def test_bad_df_file(tmp_path: object) -> None:
    path = f"{tmp_path}/bad.npz"
    with open(path, "wb") as fh:
        fh.write(b"not a df file")
    with pytest.raises(ValueError, match="not a capeval document-frequency file"):
        DocumentFrequencies.load(path)


def test_score_batch_many_candidates_per_item() -> None:
    metric = CIDErD(tokenizer="none", df=DocumentFrequencies.from_references(REFS))
    batch = metric.score_batch(["a dog runs", "a dog", "a cat sleeps"], [0, 0, 1], REFS)
    single = [metric.score_batch([c], [i], REFS)[0] for c, i in (("a dog runs", 0), ("a dog", 0), ("a cat sleeps", 1))]
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="out of range"):
        metric.score_batch(["a"], [5], REFS)


def _lcs_dp(a: list[int], b: list[int]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def test_bit_parallel_lcs_equals_dynamic_programming() -> None:
    from capeval.metrics.rouge import lcs_lengths

    rng = np.random.default_rng(1)
    # Lengths from 0 to 150 cover both the 64-bit vectorized path and the long-sentence path.
    sents = [list(rng.integers(0, 6, size=rng.integers(0, 150))) for _ in range(120)]
    words = np.array([w for s in sents for w in s], dtype=np.int64)
    lengths = np.array([len(s) for s in sents])
    starts = np.cumsum(lengths) - lengths
    left, right = rng.integers(0, 120, 300), rng.integers(0, 120, 300)
    got = lcs_lengths(words, starts, lengths, left, right)
    assert got.tolist() == [_lcs_dp(sents[a], sents[b]) for a, b in zip(left, right, strict=True)]


def test_encode_words_with_sentinel_character_in_text() -> None:
    from capeval.metrics.ngrams import encode_words

    for sep in (None, " "):
        sentences = ["a \x00 b", "", "\x00", "c a"]
        words, lengths, vocab = encode_words(sentences, sep=sep)
        expected = [s.split(sep) for s in sentences]
        assert lengths.tolist() == [len(e) for e in expected]
        assert [vocab[w] for w in words.tolist()] == [w for e in expected for w in e]


def test_lcs_against_candidates_equals_dynamic_programming() -> None:
    from capeval.metrics.rouge import lcs_against_candidates

    rng = np.random.default_rng(3)
    n_items = 40
    cands = [list(rng.integers(0, 8, size=rng.integers(1, 90))) for _ in range(n_items)]  # some wider than 64
    ref_item = np.repeat(np.arange(n_items), rng.integers(1, 5, size=n_items))
    refs = [list(rng.integers(0, 8, size=rng.integers(1, 120))) for _ in ref_item]
    sents = cands + refs
    words = np.array([w for s in sents for w in s], dtype=np.int64)
    lengths = np.array([len(s) for s in sents])
    starts = np.cumsum(lengths) - lengths
    got = lcs_against_candidates(words, starts, lengths, n_items, ref_item)
    assert got.tolist() == [_lcs_dp(cands[i], r) for i, r in zip(ref_item, refs, strict=True)]


@pytest.mark.parametrize("sep", [None, " "])
def test_encode_words_equals_str_split_on_random_text(sep: str | None) -> None:
    """The byte-level word encoder gives exactly ``str.split(sep)``, Unicode white space included."""
    import random

    from capeval.metrics.ngrams import encode_words

    rng = random.Random(0)
    alphabet = "ab c\t.xyz  0123456789-'\x1f\x0b\xa0é\u2028€漢\u3000\x85\u2005\u200a\u200b\u1680"
    words = [
        "averyveryverylongwordindeedmorethan16",
        "exactly16bytes!!",
        "short",
        "a\xa0b",
        "\u3000",
        "1\xa01/2",
        "8bytes!!",
        "9bytes!!!",
        "9bytes!!?",
        "\u00e9t\u00e9s",
    ]  # around the 8 packed bytes of a short key
    for _ in range(300):
        sentences = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(rng.randint(1, 6))]
        sentences += [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(2)] + ["", " "]
        rng.shuffle(sentences)
        ids, lengths, vocab = encode_words(sentences, sep=sep)
        split = [s.split(sep) for s in sentences]
        assert [vocab[i] for i in ids.tolist()] == [w for s in split for w in s]
        assert lengths.tolist() == [len(s) for s in split]
        assert len(set(vocab)) == len(vocab)


@pytest.mark.parametrize("sep", [None, " "])
def test_encode_words_ids_in_first_occurrence_order_over_a_large_vocabulary(sep: str | None) -> None:
    """Ids are ranks of first occurrence, across the table's growth and long (hashed) words."""
    import random

    from capeval.metrics.ngrams import encode_words

    rng = random.Random(1)
    sentences = [
        " ".join(f"w{rng.randint(0, 60000)}" + "x" * rng.randint(0, 12) for _ in range(20)) for _ in range(2000)
    ]
    ids, lengths, vocab = encode_words(sentences, sep=sep)
    first: dict[str, int] = {}
    expected = [first.setdefault(w, len(first)) for s in sentences for w in s.split(sep)]
    assert ids.tolist() == expected
    assert vocab == tuple(first)
    assert lengths.tolist() == [20] * len(sentences)
