"""Word lists and tag sets shared by the retagging, the conversion and the model loading."""

from __future__ import annotations

__all__ = ["BE_FORMS", "NOUN_TAGS", "SENTENCE_END", "THREE_WORD_PREPOSITIONS", "TWO_WORD_PREPOSITIONS"]

#: CoreNLP 3.6.0 UD v1 three-word prepositions (collapsed to one nmod relation).
THREE_WORD_PREPOSITIONS = frozenset(
    """by_means_of in_accordance_with in_addition_to in_case_of in_front_of in_lieu_of in_place_of in_spite_of
    on_account_of on_behalf_of on_top_of with_regard_to with_respect_to""".split()
)
#: CoreNLP 3.6.0 UD v1 two-word prepositions ("regular" and "complex" lists united).
TWO_WORD_PREPOSITIONS = frozenset(
    """across_from along_with alongside_of apart_from as_for as_from as_of as_per as_to aside_from based_on
    close_by close_to contrary_to compared_to compared_with except_for exclusive_of far_from followed_by inside_of
    irrespective_of next_to near_to off_of out_of outside_of owing_to preliminary_to preparatory_to previous_to
    pursuant_to regardless_of subsequent_to thanks_to together_with away_from""".split()
)

#: Tokens after which CoreNLP's default sentence splitter starts a new sentence.
SENTENCE_END = frozenset({".", "!", "?"})
#: Penn noun tags (SPICE's ``NNP?S?``).
NOUN_TAGS = ("NN", "NNS", "NNP", "NNPS")
BE_FORMS = frozenset({"be", "is", "are", "was", "were", "am", "been", "being", "'s", "'re", "'m"})
