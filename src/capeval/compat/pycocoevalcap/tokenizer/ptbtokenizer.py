"""``pycocoevalcap.tokenizer.ptbtokenizer`` without Java: capeval's COCO-exact PTB tokenizer."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from capeval.compat._checks import CompatInputError
from capeval.tokenizers.ptb import COCO_PUNCTUATIONS
from capeval.tokenizers.ptb import PTBTokenizer as _PTB

__all__ = ["PUNCTUATIONS", "PTBTokenizer"]

#: Tokens the COCO evaluation removes after tokenization (the official list).
PUNCTUATIONS = list(COCO_PUNCTUATIONS)


class PTBTokenizer:
    """Tokenize ``{image_id: [{"caption": str, ...}, ...]}`` into ``{image_id: [str, ...]}``.

    All captions are tokenized as one stream in dict order, as the official wrapper does, and
    lower-cased with the COCO punctuation removed. Images with no captions are left out of the
    result, as in the official code. Unlike the official code, a caption containing ``\\r`` or
    another line break is never split into two lines (which would shift later captions).

    Example:
        >>> PTBTokenizer().tokenize({1: [{"caption": "A dog, running."}]})
        {1: ['a dog running']}
    """

    def tokenize(self, captions_for_image: Mapping[Hashable, Sequence[Any]]) -> dict[Hashable, list[str]]:
        """Tokenized captions per image, in the order given."""
        if not isinstance(captions_for_image, Mapping):
            raise CompatInputError(
                "PTBTokenizer.tokenize: expected a dict {image_id: [{'caption': str}, ...]}, "
                f"got {type(captions_for_image).__name__}"
            )
        image_ids: list[Hashable] = []
        texts: list[str] = []
        for image_id, anns in captions_for_image.items():
            if isinstance(anns, (str, Mapping)) or not isinstance(anns, Sequence):
                raise CompatInputError(
                    f"PTBTokenizer.tokenize: captions of image {image_id!r} must be a list of "
                    f"{{'caption': str}} dicts, got {type(anns).__name__}"
                )
            for j, ann in enumerate(anns):
                caption = ann.get("caption") if isinstance(ann, Mapping) else None
                if not isinstance(caption, str):
                    got = type(ann).__name__ if not isinstance(ann, Mapping) else f"caption {type(caption).__name__}"
                    raise CompatInputError(
                        f"PTBTokenizer.tokenize: image {image_id!r}, entry {j}: expected a dict with a "
                        f"'caption' string, got {got}"
                    )
                image_ids.append(image_id)
                texts.append(caption)
        out: dict[Hashable, list[str]] = {}
        for image_id, line in zip(image_ids, _PTB().tokenize(texts), strict=True):
            out.setdefault(image_id, []).append(line)
        return out
