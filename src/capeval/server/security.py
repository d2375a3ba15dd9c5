"""Passwords and tokens.

Passwords are hashed with scrypt (stdlib ``hashlib.scrypt``) and a random salt. API
tokens and web sessions are random 32-byte strings; only their SHA-256 digest is stored,
with an expiry, so a leaked database does not leak usable credentials.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["hash_password", "hash_token", "new_token", "verify_password"]

#: scrypt cost parameters (RFC 7914 recommends N=2**14, r=8, p=1 for interactive logins).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
TOKEN_BYTES = 32
#: Prefix that makes capeval tokens recognisable in logs and secret scanners.
TOKEN_PREFIX = "cpv_"


def hash_password(password: str) -> str:
    """Return ``scrypt$N$r$p$salt$digest`` for a password."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Check a password against :func:`hash_password` output in constant time."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    candidate = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    return hmac.compare_digest(candidate.hex(), digest)


def new_token() -> str:
    """A fresh random token string (shown to its owner once)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
