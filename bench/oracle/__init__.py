"""Oracle: the official COCO caption evaluation (pycocoevalcap 1.2, needs Java), run side by side.

Used by the benchmarks in ``bench/`` and by the slow parity suites in ``tests/``; capeval itself
never needs Java. One implementation, imported two ways without touching ``sys.path``:

* a benchmark run as ``python bench/<script>.py`` has ``bench/`` on its path (Python puts the
  script's directory there) and imports ``oracle``;
* the tests have the repository root on their path (``pythonpath = ["."]`` in the pytest
  configuration) and import ``bench.oracle``.

The package holds no import of its own siblings by absolute name, so both work.
"""

from .official import (
    OracleUnavailable,
    human_agreement_protocol,
    oracle_dir,
    oracle_python,
    run_official,
    run_spice_core,
    val2014_captions,
)

__all__ = [
    "OracleUnavailable",
    "human_agreement_protocol",
    "oracle_dir",
    "oracle_python",
    "run_official",
    "run_spice_core",
    "val2014_captions",
]
