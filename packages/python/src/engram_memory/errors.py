"""Typed errors of the Python host."""

from __future__ import annotations

from typing import Optional


class EngramError(Exception):
    """The policy refused a request.

    ``kind`` is the case of the component's WIT ``error`` variant:
    ``invalid-input``, ``unsupported``, ``not-found``, ``permission-denied``,
    ``conflict``, ``store`` or ``limit-exceeded``. Input this host cannot
    convert is reported the same way, as ``invalid-input`` with ``field`` (a
    dotted path) and ``index`` (the position in the input list).
    """

    def __init__(self, kind: str, message: str, field: Optional[str] = None, index: Optional[int] = None):
        self.kind = kind
        self.detail = message
        self.field = field
        self.index = index
        named = f"field `{field}`: {message}" if field else message
        if index is not None:
            text = f"item {index + 1}: {named}"  # counted from 1, as every transport names items
        elif field is not None:
            text = named
        else:
            text = f"{kind}: {message}"
        super().__init__(text)

    @classmethod
    def input(cls, field: str, message: str, index: Optional[int] = None) -> "EngramError":
        return cls("invalid-input", message, field=field, index=index)

    def to_json(self) -> dict:
        out = {"kind": self.kind, "message": self.detail}
        if self.field is not None:
            out["field"] = self.field
        if self.index is not None:
            out["index"] = self.index
        return out


class EngramTrap(Exception):
    """The component trapped (a guest panic, a host import that raised, a
    time or memory limit). The instance was discarded; the next call runs on
    a fresh one. The store keeps whatever commits had completed."""


class StoreError(Exception):
    """A store refusal, sent to the guest as ``store-error``: ``kind`` is
    ``denied``, ``conflict``, ``invalid`` or ``backend``."""

    KINDS = ("denied", "conflict", "invalid", "backend")

    def __init__(self, kind: str, message: str):
        if kind not in self.KINDS:
            raise ValueError(f"unknown store error kind {kind!r}")
        self.kind = kind
        self.detail = message
        super().__init__(f"{kind}: {message}")
