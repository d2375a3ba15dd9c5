"""``capeval cider-df``: CIDEr-D document frequencies for training rewards (convert, build)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _write(table: Any, n_documents: float, output: str, name: str, n: int) -> str:
    from capeval.compat.dfpickle import frequencies_from_mapping, save_df_pickle

    if output.endswith(".p") or output.endswith(".pkl"):
        save_df_pickle(output, table, n_documents)
        return f"{len(table):,} n-grams of {n_documents:g} documents written to {output} (pickle)"
    frequencies = frequencies_from_mapping(table, n_documents, name=name, n=n)
    frequencies.save(output)
    return f"{len(table):,} n-grams of {n_documents:g} documents written to {output}"


def _convert(args: argparse.Namespace) -> int:
    from capeval.compat.dfpickle import load_df_pickle

    if not args.output.endswith(".npz"):
        raise ValueError(f"--output must end in .npz, got {args.output!r}")
    table, ref_len = load_df_pickle(args.input, n=args.n)
    name = args.name or Path(args.input).stem
    print(f"capeval: {_write(table, ref_len, args.output, name, args.n)}", file=sys.stderr)
    return 0


def _build(args: argparse.Namespace) -> int:
    from capeval.compat.dfpickle import build_frequencies

    vocab = None
    if args.vocab:
        with open(args.vocab, encoding="utf-8") as fh:
            data = json.load(fh)
        ix_to_word = data.get("ix_to_word") if isinstance(data, dict) else None
        if not isinstance(ix_to_word, dict):
            raise ValueError(f"{args.vocab}: expected a JSON object with an 'ix_to_word' mapping")
        vocab = {str(w): str(i) for i, w in ix_to_word.items()}
    table, n_documents = build_frequencies(
        args.captions, split=args.split, vocab=vocab, tokenizer=args.tokenizer, eos=args.eos
    )
    name = args.name or Path(args.output).stem
    print(f"capeval: {_write(table, n_documents, args.output, name, 4)}", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval cider-df convert`` and ``capeval cider-df build``."""
    parser = subparsers.add_parser(
        "cider-df",
        help="CIDEr-D document frequencies for training rewards: convert a pickle, build from captions",
        description="Document frequencies of a reference corpus for CIDEr-D rewards (CiderD(df=...)).",
    )
    commands = parser.add_subparsers(dest="cider_df_command", metavar="ACTION", required=True)
    convert = commands.add_parser(
        "convert",
        help="convert a self-critical df pickle to capeval's .npz (read with a restricted unpickler)",
        description="Convert {'document_frequency': {ngram: count}, 'ref_len': n} to capeval's .npz. "
        "The pickle is read by a restricted unpickler: anything but dicts, tuples, strings and numbers is refused.",
    )
    convert.add_argument("input", help="the pickle, e.g. data/coco-train-idxs.p")
    convert.add_argument("output", help="the .npz to write")
    convert.add_argument("--n", type=int, default=4, help="highest n-gram order (4)")
    convert.add_argument("--name", help="label recorded in signatures (default: the input file name)")
    convert.set_defaults(func=_convert)
    build = commands.add_parser(
        "build",
        help="count document frequencies of a COCO captions file or a Karpathy split JSON",
        description="Count n-gram document frequencies (n = 1..4, one document per image) of reference captions. "
        "A Karpathy split JSON (dataset_coco.json) uses its tokens and --split; a COCO captions file is "
        "tokenized with --tokenizer. Output .npz (capeval) or .p (the self-critical pickle).",
    )
    build.add_argument("--captions", required=True, help="dataset_coco.json (Karpathy) or captions_train2014.json")
    build.add_argument("--output", required=True, help="file to write: .npz or .p")
    build.add_argument("--split", default="train", help="Karpathy split: train (with restval), val, test, all")
    build.add_argument("--vocab", help="the training code's vocabulary JSON (ix_to_word): word indices, UNK")
    build.add_argument("--eos", action="store_true", help="append <eos> (index 0) to every reference, as prepro_ngrams")
    build.add_argument("--tokenizer", default="ptb", help="tokenizer for a COCO captions file: ptb, ws, none")
    build.add_argument("--name", help="label recorded in signatures (default: the output file name)")
    build.set_defaults(func=_build)
