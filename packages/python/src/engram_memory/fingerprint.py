"""The fingerprint secret and the per-owner keys derived from it, as the
Rust host derives them (``host/src/fingerprint.rs``, docs/durability.md).

Tombstones are HMAC-SHA-256 fingerprints under a key of their owner
(tenant, user, project), derived here from a secret the store keeps out of
its database; the guest is handed only the keys of owners its principal can
see.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from typing import Any, Optional

from .errors import StoreError
from .records import rec

#: Bytes of a new secret.
SECRET_BYTES = 32


def random_secret() -> bytes:
    """A secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def check_secret(secret: bytes) -> bytes:
    if not isinstance(secret, (bytes, bytearray)) or len(secret) < 16:
        raise StoreError("backend", f"a fingerprint key needs at least 16 bytes, this one has {len(secret or b'')}")
    return bytes(secret)


def secret_from_hex(text: str, where: str = "fingerprint key") -> bytes:
    """A key file's text: the secret in hex."""
    try:
        return check_secret(bytes.fromhex(text.strip()))
    except ValueError as e:
        raise StoreError("backend", f"{where}: a fingerprint key file holds the key in hex ({e})") from e


def secret_to_file_text(secret: bytes) -> str:
    return secret.hex() + "\n"


def key_id(secret: bytes) -> str:
    """The key's id as stores record it (nothing to learn the key from)."""
    return hmac.new(secret, b"engram/fingerprint-key-id/v1", hashlib.sha256).hexdigest()[:16]


def _field(value: Optional[str]) -> bytes:
    if value is None:
        return b"\x00"
    data = value.encode("utf-8")
    return b"\x01" + struct.pack(">I", len(data)) + data


def derive_key(secret: bytes, owner: Any) -> bytes:
    """The fingerprint key of content owned by ``owner`` (its tenant, user
    and project): HMAC-SHA-256 keyed with the secret over
    ``engram/fingerprint-key/v1`` and each of tenant, user and project as a
    0 byte (none) or a 1 byte, its UTF-8 length (4 bytes, big-endian) and
    its UTF-8."""
    message = b"engram/fingerprint-key/v1" + _field(owner.tenant) + _field(owner.user) + _field(owner.project)
    return hmac.new(secret, message, hashlib.sha256).digest()


def owner_of(scope: Any) -> Any:
    """The owner of content in ``scope``: its tenant, user and project."""
    return rec(tenant=scope.tenant, user=scope.user, project=scope.project, thread=None, agent=None)


def sees_owner(principal: Any, owner: Any) -> bool:
    """May ``principal`` see content owned by ``owner``: the same tenant and,
    on every dimension the principal pins, the owner's unset or equal."""

    def dim(p: Optional[str], o: Optional[str]) -> bool:
        return p is None or o is None or p == o

    return (
        principal.tenant == owner.tenant
        and dim(principal.user, owner.user)
        and dim(principal.project, owner.project)
    )


def check_recorded(secret: bytes, recorded: Optional[str], where: str) -> None:
    """Refuse a secret that is not the one the store's tombstones were made with."""
    if recorded is not None and recorded != key_id(secret):
        raise StoreError(
            "backend",
            f"the fingerprint key {where} (key id {key_id(secret)}) is not the key this store's tombstones "
            f"were made with (key id {recorded}): restore that key file (docs/durability.md)",
        )
