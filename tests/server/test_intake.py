"""Bad input: a corpus of malformed uploads, each refused with a 4xx and a precise message,
none counted against the quota; plus the request-size limit (413) and the dry run."""

from __future__ import annotations

import io
import json
import stat
import zipfile

import pytest

from .support import csrf_token, make_server, results_for, split_ids

VAL_IDS, TEST_IDS = split_ids()
GOOD = results_for(VAL_IDS)


def _json(obj: object) -> bytes:
    return json.dumps(obj).encode()


def _zip(members: dict[str, bytes], symlinks: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, data)
    return buf.getvalue()


def _encrypted_zip() -> bytes:
    data = bytearray(_zip({"results.json": _json(GOOD)}))
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x1  # general-purpose flag bit 0: encrypted
    return bytes(data)


def _with(index: int, **changes: object) -> bytes:
    items = [dict(x) for x in GOOD]
    items[index].update(changes)
    return _json(items)


def _without(key: str) -> bytes:
    items = [dict(x) for x in GOOD]
    del items[3][key]
    return _json(items)


J = "application/json"
Z = "application/zip"
BOMB = _zip({"results.json": b"[" + b" " * (60 * 1024 * 1024) + b"]"})

# (case id, body, content type, expected status, expected fragment of the message)
CASES = [
    ("empty-file", b"", J, 400, "is empty"),
    ("whitespace-file", b"  \n\t ", J, 400, "is empty"),
    ("truncated-json", b'[{"image_id": 1, "caption": "a', J, 400, "invalid JSON at line 1"),
    ("trailing-comma", b'[{"image_id": 1, "caption": "a"},]', J, 400, "invalid JSON at line 1"),
    ("single-quotes", b"[{'image_id': 1, 'caption': 'a'}]", J, 400, "invalid JSON at line 1"),
    ("garbage", b"\x00\x01\x02 not json", J, 400, "invalid JSON at line 1"),
    ("non-utf8-bytes", b'[{"image_id": 1, "caption": "caf\xe9"}]', J, 400, "not valid UTF-8 at byte 32 (b'\\xe9')"),
    ("utf16", json.dumps(GOOD).encode("utf-16"), J, 400, "not valid UTF-8"),
    ("deep-nesting", b"[" * 100_000 + b"]" * 100_000, J, 400, "nested more than"),
    ("object-not-list", _json({"image_id": 1}), J, 422, "a single result object; candidates must be a list"),
    ("string-document", _json("hello"), J, 422, "expected a COCO results list or an {id: caption} object, got str"),
    ("number-document", b"42", J, 422, "expected a COCO results list or an {id: caption} object, got int"),
    ("null-document", b"null", J, 422, "expected a COCO results list or an {id: caption} object, got NoneType"),
    ("empty-list", b"[]", J, 422, "no captions found"),
    (
        "list-of-strings",
        _json(["a dog"]),
        J,
        422,
        'entry 0: expected an object {"image_id": ..., "caption": ...}, got str',
    ),
    (
        "list-of-lists",
        _json([[1, "a dog"]]),
        J,
        422,
        'entry 0: expected an object {"image_id": ..., "caption": ...}, got list',
    ),
    ("missing-image-id", _without("image_id"), J, 422, "entry 3: missing 'image_id'"),
    ("missing-caption", _without("caption"), J, 422, "entry 3: missing 'caption'"),
    (
        "image-id-string",
        _with(2, image_id=str(GOOD[2]["image_id"])),
        J,
        422,
        "entry 2: image_id must be an integer, got str",
    ),
    ("image-id-float", _with(2, image_id=1.5), J, 422, "image_id must be an integer, got float"),
    ("image-id-bool", _with(2, image_id=True), J, 422, "image_id must be an integer, got bool"),
    ("image-id-null", _with(2, image_id=None), J, 422, "image_id must be an integer, got NoneType"),
    ("image-id-list", _with(2, image_id=[1]), J, 422, "image_id must be an integer, got list"),
    ("caption-int", _with(4, caption=7), J, 422, "caption must be a string, got int"),
    ("caption-list", _with(4, caption=["a", "b"]), J, 422, "caption must be a string, got list"),
    ("caption-null", _with(4, caption=None), J, 422, "caption must be a string, got NoneType"),
    ("caption-object", _with(4, caption={"text": "a"}), J, 422, "caption must be a string, got dict"),
    ("caption-nan", _with(4, caption=float("nan")), J, 400, "NaN is not a JSON number"),
    ("caption-empty", _with(5, caption=""), J, 422, "caption is empty"),
    ("caption-blank", _with(5, caption="   \t"), J, 422, "caption is empty"),
    (
        "caption-huge",
        _with(6, caption="a " * 5000),
        J,
        422,
        f"entry 6 (image id {GOOD[6]['image_id']}): caption is 10,000 characters long (limit 1,000)",
    ),
    ("caption-nul", _with(6, caption="a\x00b"), J, 422, "control character U+0000"),
    ("caption-cr", _with(6, caption="a\rb"), J, 422, "control character U+000D at position 1"),
    ("caption-line-separator", _with(6, caption="a\u2028b"), J, 422, "control character U+2028 at position 1"),
    ("caption-surrogate", _with(6, caption="a\ud800"), J, 400, "lone UTF-16 surrogate"),
    ("image-id-4000-digits", _with(7, image_id=int("9" * 4000)), J, 400, "an integer has 4,000 digits; at most 20"),
    ("image-id-21-digits", _with(7, image_id=10**20), J, 400, "an integer has 21 digits; at most 20 allowed"),
    ("image-id-overflow", _json(GOOD).replace(b'"image_id": ', b'"image_id": 1e999', 1), J, 400, "out of range"),
    ("nested-9-deep", _json([[[[[[[[[{"image_id": 1}]]]]]]]]]), J, 400, "nested more than 8 levels deep"),
    ("unknown-id", _with(7, image_id=999_999_999), J, 422, "image_id 999999999 is not an image of this phase"),
    ("negative-id", _with(7, image_id=-1), J, 422, "image_id -1 is not an image of this phase"),
    ("test-id-in-val", _json([*GOOD, {"image_id": TEST_IDS[0], "caption": "x"}]), J, 422, "not an image of this"),
    (
        "duplicate-id",
        _json([*GOOD, dict(GOOD[0])]),
        J,
        422,
        f"duplicate result for image id {GOOD[0]['image_id']} (first given at entry 0)",
    ),
    ("duplicate-id-other-caption", _json([*GOOD, {**GOOD[1], "caption": "b"}]), J, 422, "(first given at entry 1)"),
    ("missing-one", _json(GOOD[1:]), J, 422, f"1 of {len(GOOD)} images have no caption"),
    ("missing-half", _json(GOOD[::2]), J, 422, "images have no caption"),
    ("content-type-html", _json(GOOD), "text/html", 415, "unsupported content type 'text/html'"),
    ("content-type-png", _json(GOOD), "image/png", 415, "unsupported content type 'image/png'"),
    ("content-type-form", _json(GOOD), "application/x-www-form-urlencoded", 415, "unsupported content type"),
    ("content-type-xml", _json(GOOD), "application/xml", 415, "unsupported content type"),
    ("zip-sent-as-json", _zip({"r.json": _json(GOOD)}), J, 415, "is a zip but was sent as application/json"),
    ("json-sent-as-zip", _json(GOOD), Z, 400, "declared a zip but is not a zip file"),
    ("gzip-sent-as-zip", b"\x1f\x8b\x08\x00" + b"\x00" * 20, Z, 400, "declared a zip but is not"),
    ("zip-bomb", BOMB, Z, 413, "expands beyond the"),
    ("zip-path-traversal", _zip({"../results.json": _json(GOOD)}), Z, 400, "'..' path components"),
    ("zip-deep-traversal", _zip({"a/../../results.json": _json(GOOD)}), Z, 400, "'..' path components"),
    ("zip-absolute-path", _zip({"/tmp/results.json": _json(GOOD)}), Z, 400, "absolute paths"),
    ("zip-drive-letter", _zip({"C:/results.json": _json(GOOD)}), Z, 400, "absolute paths"),
    ("zip-backslash", _zip({"..\\results.json": _json(GOOD)}), Z, 400, "backslashes"),
    ("zip-symlink", _zip({"results.json": b"/etc/passwd"}, symlinks=("results.json",)), Z, 400, "symbolic link"),
    ("zip-nested-zip", _zip({"inner.zip": _zip({"r.json": _json(GOOD)})}), Z, 400, "nesting is refused"),
    ("zip-nested-gz", _zip({"results.json.gz": b"\x1f\x8b"}), Z, 400, "nesting is refused"),
    ("zip-disguised-archive", _zip({"results.json": _zip({"r.json": b"[]"})}), Z, 400, "is itself an archive"),
    ("zip-no-json", _zip({"README.txt": b"hello"}), Z, 400, "exactly one .json results file; found none"),
    ("zip-two-json", _zip({"a.json": _json(GOOD), "b.json": _json(GOOD)}), Z, 400, "found 'a.json', 'b.json'"),
    ("zip-too-many-members", _zip({f"f{i}.txt": b"x" for i in range(9)}), Z, 400, "9 members; at most 8"),
    ("zip-encrypted", _encrypted_zip(), Z, 400, "is encrypted"),
    ("zip-corrupt", b"PK\x03\x04" + b"\x00" * 40, Z, 400, "not a readable zip file"),
    ("zip-empty-json", _zip({"results.json": b""}), Z, 400, "zip member 'results.json': file is empty"),
    ("zip-non-utf8", _zip({"results.json": b'[{"caption": "\xff"}]'}), Z, 400, "not valid UTF-8"),
    ("zip-bad-json", _zip({"results.json": b"[{"}), Z, 400, "zip member 'results.json': invalid JSON at line 1"),
    ("zip-wrong-ids", _zip({"r.json": _json(results_for(TEST_IDS))}), Z, 422, "not an image of this phase"),
]


def test_corpus_is_large_enough():
    assert len(CASES) >= 50


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = make_server(f"sqlite:///{tmp_path_factory.mktemp('intake') / 'db.sqlite'}")
    server.token = server.register("mallory")
    yield server
    server.client.close()
    server.db.dispose()


@pytest.mark.parametrize(("name", "body", "ctype", "status", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_malformed_upload_is_refused(srv, name, body, ctype, status, fragment):
    r = srv.client.post(
        "/api/v1/challenges/coco-demo/phases/val/submissions",
        content=body,
        headers={"Authorization": f"Bearer {srv.token}", "content-type": ctype},
    )
    assert r.status_code == status, (name, r.status_code, r.text[:300])
    assert fragment in r.json()["detail"], (name, r.json())


def test_malformed_multipart(srv):
    auth = {"Authorization": f"Bearer {srv.token}"}
    url = "/api/v1/challenges/coco-demo/phases/val/submissions"
    r = srv.client.post(url, data={"method_name": "x"}, files={"other": ("a.json", b"[]", J)}, headers=auth)
    assert r.status_code == 400 and "no 'file' part" in r.json()["detail"]
    r = srv.client.post(url, files={"file": ("a.html", _json(GOOD), "text/html")}, headers=auth)
    assert r.status_code == 415 and "text/html" in r.json()["detail"]
    r = srv.client.post(url, files={"file": ("a.zip", BOMB, Z)}, headers=auth)
    assert r.status_code == 413 and "expands beyond" in r.json()["detail"]


def test_quota_untouched_after_rejections(srv):
    # Runs after the corpus above (same module-scoped server): nothing was counted or stored.
    r = srv.client.get("/api/v1/challenges/coco-demo", headers={"Authorization": f"Bearer {srv.token}"})
    quota = r.json()["quota"]
    assert quota["val"]["today"] == 0 and quota["val"]["total"] == 0 and quota["val"]["in_flight"] == 0
    assert srv.client.get("/api/v1/submissions", headers={"Authorization": f"Bearer {srv.token}"}).json() == []


def test_unauthenticated_upload_is_refused(srv):
    r = srv.client.post(
        "/api/v1/challenges/coco-demo/phases/val/submissions", content=_json(GOOD), headers={"content-type": J}
    )
    assert r.status_code == 401


def test_id_caption_mapping_is_read_like_the_library_reads_it(srv):
    # One reader: an {id: caption} mapping is a results file here as it is for the command line.
    auth = {"Authorization": f"Bearer {srv.token}", "content-type": J}
    url = "/api/v1/challenges/coco-demo/phases/val/submissions?dry_run=true"
    mapping = {str(r["image_id"]): r["caption"] for r in GOOD}
    r = srv.client.post(url, content=_json(mapping), headers=auth)
    assert r.status_code == 200 and r.json()["n_images"] == len(GOOD)
    r = srv.client.post(url, content=_json({"x" + k: v for k, v in mapping.items()}), headers=auth)
    assert r.status_code == 422 and "image_id must be an integer, got str" in r.json()["detail"]


def test_dry_run_validates_without_counting(srv):
    auth = {"Authorization": f"Bearer {srv.token}", "content-type": J}
    url = "/api/v1/challenges/coco-demo/phases/val/submissions?dry_run=true"
    r = srv.client.post(url, content=_json(GOOD), headers=auth)
    assert r.status_code == 200 and r.json()["valid"] is True and r.json()["n_images"] == len(GOOD)
    r = srv.client.post(url, content=_json(GOOD[1:]), headers=auth)
    assert r.status_code == 422
    quota = srv.client.get("/api/v1/challenges/coco-demo", headers=auth).json()["quota"]["val"]
    assert quota["total"] == 0


def test_body_limit_413_before_reading(tmp_path):
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", max_upload_bytes=10_000)
    token = server.register("bob")
    url = "/api/v1/challenges/coco-demo/phases/val/submissions"
    auth = {"Authorization": f"Bearer {token}", "content-type": J}
    big = b"[" + b" " * 200_000 + b"]"
    r = server.client.post(url, content=big, headers=auth)  # Content-Length declared
    assert r.status_code == 413 and "upload limit" in r.json()["detail"]

    def stream():
        for _ in range(100):
            yield b" " * 4096

    r = server.client.post(url, content=stream(), headers=auth)  # chunked, no Content-Length
    assert r.status_code == 413
    r = server.client.post(url, files={"file": ("r.json", big, J)}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 413
    server.client.close()
    server.db.dispose()


def test_page_upload_errors_are_shown_on_the_page(srv):
    srv.client.cookies.clear()
    login = {"username": "mallory", "password": "password-123", "csrf_token": csrf_token(srv.client)}
    r = srv.client.post("/login", data=login, follow_redirects=False)
    assert r.status_code == 303
    token = csrf_token(srv.client, "/c/coco-demo/submit")
    bad = _with(4, caption=7)
    r = srv.client.post(
        "/c/coco-demo/submit", data={"phase": "val", "csrf_token": token}, files={"file": ("r.json", bad, J)}
    )
    assert r.status_code == 422 and "caption must be a string, got int" in r.text and 'id="upload-error"' in r.text
    r = srv.client.post(
        "/c/coco-demo/submit",
        data={"phase": "val", "dry_run": "on", "csrf_token": token},
        files={"file": ("r.json", _json(GOOD), J)},
    )
    assert r.status_code == 200 and 'id="dry-run-ok"' in r.text
    r = srv.client.post("/c/coco-demo/submit", data={"phase": "val", "csrf_token": token}, files={"file": ("", b"", J)})
    assert r.status_code == 400 and "choose a results file" in r.text
    srv.client.post("/logout", data={"csrf_token": token})
    quota = srv.client.get("/api/v1/challenges/coco-demo", headers={"Authorization": f"Bearer {srv.token}"})
    assert quota.json()["quota"]["val"]["total"] == 0
