"""Oracle: the official COCO caption evaluation (pycocoevalcap 1.2, needs Java), run side by side.

Used by the benchmarks in ``bench/`` and by the slow parity suites in ``tests/``; capeval itself
never needs Java. One implementation, imported two ways without touching ``sys.path``:

* a benchmark run as ``python bench/<script>.py`` has ``bench/`` on its path (Python puts the
  script's directory there) and imports ``oracle``;
* the tests have the repository root on their path (``pythonpath = ["."]`` in the pytest
  configuration) and import ``bench.oracle``.

The package holds no import of its own siblings by absolute name, so both work.
"""

from .morpha import *  # noqa: F403  (and morpha.py's)
from .morpha import __all__ as _morpha_all
from .official import *  # noqa: F403  (the public names are official.py's ``__all__``)
from .official import __all__ as _official_all
from .spice_full import *  # noqa: F403  (and spice_full.py's)
from .spice_full import __all__ as _spice_full_all
from .spice_tuples import *  # noqa: F403  (and spice_tuples.py's)
from .spice_tuples import __all__ as _spice_tuples_all

__all__ = [*_official_all, *_spice_full_all, *_morpha_all, *_spice_tuples_all]
