"""Compatibility module; see :mod:`capeval.compat.pyciderevalcap`."""
