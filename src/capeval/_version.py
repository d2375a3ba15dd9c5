"""The package version (single source).

A development version ``0.2.0.devN`` until the release: ``N`` goes up with every commit that can
change a score, together with a CHANGELOG line naming the signature field that shows it, so a
signature's ``v:`` field always tells which code made a number.
"""

__version__ = "0.2.0.dev13"
