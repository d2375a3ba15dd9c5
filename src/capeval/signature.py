"""Reproducibility signatures.

Every result carries a :class:`Signature` naming everything that can change its number:
metric, tokenizer, n-gram order, sigma, document-frequency source, number of references,
and the capeval version (always last). The string form is stable and round-trips through
:meth:`Signature.parse`::

    cider-d|n:4|sigma:6|df:refs|tok:ptb|nrefs:5|v:<version>

``nrefs`` is a single number when every item has the same number of references and
``min-max`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Signature"]

_SEP = "|"
_KV = ":"


@dataclass(frozen=True)
class Signature:
    """A metric's configuration, printable and parseable.

    Args:
        metric: Registry key of the metric, e.g. ``"cider-d"``.
        fields: Ordered ``(key, value)`` pairs; values are strings.
        version: capeval version that produced the number.

    Example:
        >>> sig = Signature("bleu", (("n", "4"), ("tok", "ptb")), "0.1.0")
        >>> str(sig)
        'bleu|n:4|tok:ptb|v:0.1.0'
        >>> Signature.parse(str(sig)) == sig
        True
    """

    metric: str
    fields: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    version: str = ""

    def __post_init__(self) -> None:
        for key, value in self.fields:
            for part in (key, value):
                if _SEP in part or (part is key and _KV in part) or not part:
                    raise ValueError(f"signature field {key!r}:{value!r} is empty or contains '|' or ':'")

    def get(self, key: str, default: str | None = None) -> str | None:
        """Return the value of ``key`` or ``default``."""
        for k, v in self.fields:
            if k == key:
                return v
        return default

    def format(self) -> str:
        """The stable string form (version last)."""
        parts = [self.metric, *(f"{k}{_KV}{v}" for k, v in self.fields)]
        parts.append(f"v{_KV}{self.version}")
        return _SEP.join(parts)

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse the string form produced by :meth:`format`.

        Raises:
            ValueError: if ``text`` is not a signature string.
        """
        parts = text.strip().split(_SEP)
        if len(parts) < 2 or not parts[-1].startswith(f"v{_KV}"):
            raise ValueError(f"not a capeval signature: {text!r}")
        pairs = []
        for part in parts[1:-1]:
            key, sep, value = part.partition(_KV)
            if not sep:
                raise ValueError(f"malformed signature field {part!r} in {text!r}")
            pairs.append((key, value))
        return cls(parts[0], tuple(pairs), parts[-1][2:])
