"""Per-call cost fix for the ``wasmtime`` package's component values.

``wasmtime`` 48 (Python) describes a component type by asking the C API each
time: converting one record value re-reads the record's field list (and
builds a fresh type object per field), every option value re-reads its
payload type and re-derives whether it is tagged, and every call re-reads
the function's type. Lowering the 20 memories a store returns for one
``recall`` made ~12,000 such type objects: about 90% of the call.

A component type never changes, so this module memoises those structural
properties on each type object (and a function's type on the ``Func``).
Conversions themselves are untouched: the values are the same, only the
repeated look-ups go. It is applied once, at import, and only to the 48.x
series it was written against; with any other version the host runs
unpatched (correct, just slower). ``ENGRAM_PY_NO_SPEEDUPS=1`` turns it off.
"""

from __future__ import annotations

import os
from typing import Any, Callable

_APPLIED = False


def _memoised_property(cls: type, name: str) -> None:
    prop = cls.__dict__.get(name)
    if not isinstance(prop, property) or prop.fget is None:
        return
    getter: Callable[[Any], Any] = prop.fget
    slot = f"_engram_memo_{name}"

    def get(self: Any) -> Any:
        cache = self.__dict__
        try:
            return cache[slot]
        except KeyError:
            value = cache[slot] = getter(self)
            return value

    setattr(cls, name, property(get, doc=prop.__doc__))


def _memoised_method(cls: type, name: str) -> None:
    method = cls.__dict__.get(name)
    if not callable(method):
        return
    slot = f"_engram_memo_{name}"

    def call(self: Any) -> Any:
        cache = self.__dict__
        try:
            return cache[slot]
        except KeyError:
            value = cache[slot] = method(self)
            return value

    call.__doc__ = method.__doc__
    setattr(cls, name, call)


def apply() -> bool:
    """Memoise type structure in ``wasmtime.component``; returns whether it did."""
    global _APPLIED
    if _APPLIED:
        return True
    if os.environ.get("ENGRAM_PY_NO_SPEEDUPS"):  # for measuring what it saves
        return False
    try:
        from importlib.metadata import version

        if not version("wasmtime").startswith("48."):
            return False
        from wasmtime.component import _func, _types
    except Exception:  # not installed as a distribution, or moved: run unpatched
        return False
    t = _types
    for cls, names in (
        (t.FuncType, ("params", "result")),
        (t.ListType, ("element",)),
        (t.RecordType, ("fields",)),
        (t.TupleType, ("elements",)),
        (t.VariantType, ("cases",)),
        (t.EnumType, ("names",)),
        (t.OptionType, ("payload",)),
        (t.ResultType, ("ok", "err")),
        (t.FlagsType, ("names",)),
    ):
        for name in names:
            _memoised_property(cls, name)
    _memoised_method(t.VariantLikeType, "_tagged")
    _memoised_method(t.ListType, "_is_bytes")

    # A function's type is fixed: read it once per Func.
    original_type = _func.Func.type

    def func_type(self: Any, store: Any) -> Any:
        cached = self.__dict__.get("_engram_memo_type")
        if cached is None:
            cached = self.__dict__["_engram_memo_type"] = original_type(self, store)
        return cached

    func_type.__doc__ = original_type.__doc__
    _func.Func.type = func_type
    _APPLIED = True
    return True
