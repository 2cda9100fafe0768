"""GitHub webhook signatures: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`."""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: str, body: bytes) -> str:
    return PREFIX + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str | None) -> bool:
    """True when `header` is the signature of the raw `body` (constant-time compare)."""
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode("ascii"), header.strip().encode("utf-8"))
