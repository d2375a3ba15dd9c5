"""Compatibility module; see :mod:`capeval.compat.pycocoevalcap`."""
