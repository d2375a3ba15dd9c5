"""Builders of small files in the layouts their authors distribute (Flickr8K, PASCAL-50S, FOIL, COCO).

Captions are invented; only the layouts follow the releases.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = "dog cat man woman child ball grass water street red blue runs sits jumps plays holds".split()


def _caption(rng: np.random.Generator, n: int = 6) -> str:
    return "a " + " ".join(rng.choice(WORDS, size=n))


def write_flickr8k(directory: Path, *, n_images: int = 12, seed: int = 0) -> None:
    """``Flickr8k.token.txt``, ``ExpertAnnotations.txt`` and ``CrowdFlowerAnnotations.txt``.

    Each image is judged against 4 candidates: one of its own captions (``#1``) and captions of
    three other images; ratings rise with word overlap so that correlations are not zero.
    """
    rng = np.random.default_rng(seed)
    images = [f"{1000 + i}_{i:02x}ab.jpg" for i in range(n_images)]
    captions = {img: [_caption(rng) for _ in range(5)] for img in images}
    with open(directory / "Flickr8k.token.txt", "w", encoding="utf-8") as handle:
        for img in images:
            for k, cap in enumerate(captions[img]):
                handle.write(f"{img}#{k}\t{cap}\n")
    expert, crowd = [], []
    for i, img in enumerate(images):
        others = [images[(i + d) % n_images] for d in (1, 2, 5)]
        for cand_img, k in [(img, 1), *((o, int(rng.integers(0, 5))) for o in others)]:
            own = set(" ".join(captions[img]).split())
            overlap = len(own & set(captions[cand_img][k].split())) / 7
            scores = np.clip(np.round(1 + 3 * overlap + rng.normal(0, 0.6, 3)), 1, 4).astype(int)
            expert.append(f"{img}\t{cand_img}#{k}\t{scores[0]}\t{scores[1]}\t{scores[2]}")
            yes = int(np.clip(round(3 * overlap + rng.normal(0, 0.5)), 0, 3))
            crowd.append(f"{img}\t{cand_img}#{k}\t{yes / 3}\t{yes}\t{3 - yes}")
    (directory / "ExpertAnnotations.txt").write_text("\n".join(expert) + "\n", encoding="utf-8")
    (directory / "CrowdFlowerAnnotations.txt").write_text("\n".join(crowd) + "\n", encoding="utf-8")


def write_pascal50s(directory: Path, *, n_images: int = 10, n_refs: int = 12, seed: int = 0) -> None:
    """``pair_pascal.mat`` (``new_input``, ``category``, ``new_data``, ``result``) and ``pascal50S.mat`` (``refs``)."""
    from scipy.io import savemat

    rng = np.random.default_rng(seed)
    images = [f"2008_{i:06d}.jpg" for i in range(n_images)]
    refs = {img: [_caption(rng) for _ in range(n_refs)] for img in images}
    pairs = []
    for i, img in enumerate(images):
        for category in (1, 2, 3, 4):
            good = refs[img][0] + " " + str(rng.choice(WORDS))  # close to the references
            bad = refs[images[(i + 1) % n_images]][1]
            a, b = (good, bad) if rng.random() < 0.5 else (bad, good)
            n_votes = 11
            p_a = 0.8 if a == good else 0.2
            votes = np.where(rng.random(n_votes) < p_a, 1, -1).astype(np.int16)
            pairs.append((img, " " + a, b + " ", category, votes))
    new_input = np.zeros((1, len(pairs)), dtype=[("name", "O"), ("sent1", "O"), ("sent2", "O")])
    result = np.zeros((1, len(pairs)), dtype=[("result", "O")])
    for k, (img, a, b, _, votes) in enumerate(pairs):
        new_input[0, k] = (img, a, b)
        result[0, k] = (votes.reshape(1, -1),)
    category = np.array([[p[3] for p in pairs]], dtype=np.uint8)
    new_data = np.full((len(pairs), 2), 6, dtype=np.uint8)
    savemat(
        directory / "pair_pascal.mat",
        {"new_input": new_input, "category": category, "new_data": new_data, "result": result},
    )
    ref_struct = np.zeros((1, n_images), dtype=[("image", "O"), ("sent", "O")])
    for k, img in enumerate(images):
        sents = np.empty((1, n_refs), dtype=object)
        for j, s in enumerate(refs[img]):
            sents[0, j] = s
        ref_struct[0, k] = (img, sents)
    savemat(directory / "pascal50S.mat", {"refs": ref_struct})


def write_foil(directory: Path, *, n_images: int = 8, seed: int = 0) -> None:
    """``foilv1.0_test_2017.json`` (COCO-style annotations with ``foil``) and ``captions_val2014.json``."""
    rng = np.random.default_rng(seed)
    coco_images, coco_anns, foil_anns = [], [], []
    ann_id = 1
    for i in range(n_images):
        image_id = 100 + i
        coco_images.append({"id": image_id, "file_name": f"COCO_val2014_{image_id:012d}.jpg"})
        caps = [_caption(rng) for _ in range(5)]
        for cap in caps:
            coco_anns.append({"id": ann_id, "image_id": image_id, "caption": cap})
            ann_id += 1
        original = caps[0]
        words = original.split()
        words[2] = "zebra" if words[2] != "zebra" else "giraffe"
        foil_anns.append({"id": 10 * i, "image_id": image_id, "caption": original, "foil": False})
        foil_anns.append(
            {"id": 10 * i, "image_id": image_id, "caption": " ".join(words), "foil": True, "foil_word": words[2]}
        )
    (directory / "captions_val2014.json").write_text(
        json.dumps({"images": coco_images, "annotations": coco_anns}), encoding="utf-8"
    )
    (directory / "foilv1.0_test_2017.json").write_text(
        json.dumps({"images": coco_images, "annotations": foil_anns}), encoding="utf-8"
    )
