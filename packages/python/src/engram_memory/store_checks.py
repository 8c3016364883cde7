"""What every store must do to keep principals apart, checked on a store
directly (the Rust store conformance suite's tenancy checks,
``tests/src/store_conformance.rs``): ids are per tenant, updates and touches
reach only the principal's records in their own scope, scrubs only the
events within their scope, tombstones apply only where their owner's
content was visible, a session's log shows what its scope can see, and
the fingerprint key is derived as every host derives it. ``check_store(make_store, codec)`` runs each on a fresh store
and returns their names; a failed check raises naming what differed.
``codec`` is an ``Engram``'s (``engram.codec``): the records are the
component's decoding of a row body, and a store that keeps row bodies is
given it.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional

from wasmtime.component import Variant

from .errors import StoreError
from .fingerprint import derive_key
from .records import field, rec

_TIME = "2026-08-01T10:00:00Z"


def _equal(a: Any, b: Any, what: str) -> None:
    if a != b:
        raise AssertionError(f"{what}: {a!r} != {b!r}")


def _principal(tenant: str, user: Optional[str] = None) -> Any:
    return rec(tenant=tenant, user=user, project=None)


def _scope(tenant: str, user: Optional[str] = None) -> Any:
    return rec(tenant=tenant, user=user, project=None, thread=None, agent=None)


def _at(ms: int) -> Any:
    return rec(epoch_ms=ms, offset_minutes=0)


#: The codec of the run (``check_store``'s).
_rows: Any = None


def _memory(id: str, tenant: str, user: Optional[str], text: str) -> Any:
    body = {
        "id": id, "revision": 1, "kind": "episodic", "scope": {"tenant": tenant, "user": user}, "text": text,
        "payload": {"occurred_at": _TIME}, "source": {"kind": "user", "ref": f"src-{id}"}, "source_event_ids": [],
        "entities": {}, "external_id": None, "access_count": 0, "last_accessed": None,
        "extractor_version": "t", "policy_version": "t", "confidence": 0.9, "sensitivity": "internal",
        "observed_at": _TIME, "status": "active", "created_at": _TIME, "updated_at": _TIME,
        "retention": "standard", "supersedes": None, "superseded_by": None, "valid_from": None, "valid_to": None,
    }
    return _rows.decode_memories([json.dumps(body)])[0]


def _insert(m: Any) -> Variant:
    return Variant("insert", rec(memory=m, index_terms=["x"]))


def _texts(store: Any, tenant: str, id: str) -> List[str]:
    return [s.memory.text for s in store.revisions(_principal(tenant), id)]


def _ids_are_per_tenant(store: Any) -> None:
    store.commit(_principal("a"), [_insert(_memory("m-shared", "a", None, "a's"))])
    store.commit(_principal("b"), [_insert(_memory("m-shared", "b", None, "b's"))])
    _equal(_texts(store, "a", "m-shared"), ["a's"], "tenant a reads its own")
    _equal(_texts(store, "b", "m-shared"), ["b's"], "tenant b reads its own")
    try:
        store.commit(_principal("b"), [_insert(_memory("m-shared", "b", None, "again"))])
        raise AssertionError("a second revision 1 within one tenant was stored")
    except StoreError as e:
        _equal(e.kind, "conflict", "a second revision 1 within one tenant conflicts")
    store.commit(
        _principal("a"),
        [Variant("touch", rec(memory=rec(id="m-shared", revision=1), at=rec(epoch_ms=5, offset_minutes=0))), Variant("erase", "m-shared")],
    )
    _equal(_texts(store, "a", "m-shared"), [], "erased in tenant a")
    kept = store.revisions(_principal("b"), "m-shared")
    _equal([(field(s.memory, "access_count"), s.etag) for s in kept], [(0, 1)], "tenant b's untouched")


def _updates_and_touches_stay_within_the_principal(store: Any) -> None:
    m = _memory("m-own", "t", "u1", "own")
    store.commit(_principal("t"), [_insert(m)])

    def moved(scope: Any) -> Any:
        other = _memory("m-own", scope.tenant, scope.user, "moved")
        return other

    for who, memory in [
        (_principal("t"), moved(_scope("t", "u2"))),
        (_principal("t"), moved(_scope("t"))),
        (_principal("t", "u2"), m),
    ]:
        try:
            store.commit(who, [Variant("update", rec(memory=memory, index_terms=["y"], expected_etag=1))])
            raise AssertionError(f"an update by {who.tenant}/{who.user} into {memory.scope.user} was applied")
        except StoreError as e:
            _equal((e.kind, "does not exist" in e.detail), ("conflict", True), "refused as absent")
    touch = [Variant("touch", rec(memory=rec(id="m-own", revision=1), at=rec(epoch_ms=5, offset_minutes=0)))]
    store.commit(_principal("t", "u2"), touch)
    store.commit(_principal("t", "u1"), touch)
    now = store.revisions(_principal("t"), "m-own")[0]
    _equal((field(now.memory, "access_count"), now.etag, now.memory.text), (1, 1, "own"), "only u1 touched it")


def _scrubs_stay_within_their_scope(store: Any) -> None:
    def event(user: str, payload: str) -> Variant:
        return Variant(
            "append", rec(session="s", scope=_scope("t", user), kind="decision", payload=payload, at=_at(1))
        )

    store.commit(_principal("t"), [event("u1", "u1 said hunter2"), event("u2", "u2 said hunter2")])
    store.commit(_principal("t", "u1"), [Variant("scrub-events", rec(scope=_scope("t", "u1"), fragment="hunter2"))])
    _equal(
        sorted(e["payload"] for e in store.events()),
        ["u1 said [erased]", "u2 said hunter2"],
        "only u1's events scrubbed",
    )


def _a_session_log_shows_what_its_scope_can_see(store: Any) -> None:
    def event(session: str, user: Optional[str], kind: str, payload: str, ms: int) -> Variant:
        return Variant(
            "append", rec(session=session, scope=_scope("t", user), kind=kind, payload=payload, at=_at(ms))
        )

    store.commit(
        _principal("t"),
        [
            event("op:a", "u1", "operation", "first", 10),
            event("op:b", "u1", "operation", "another session", 11),
            event("op:a", "u2", "operation", "u2's", 12),
            event("op:a", None, "operation", "tenant-wide", 13),
            event("op:a", "u1", "decision", "another kind", 14),
        ],
    )
    store.commit(_principal("t"), [event("op:a", "u1", "operation", "second", 5)])
    store.commit(_principal("x"), [Variant("append", rec(
        session="op:a", scope=_scope("x", "u1"), kind="operation", payload="x's", at=_at(1)))])

    def log(scope: Any) -> List[str]:
        return [
            f"{e.payload}@{e.scope.user or '-'}@{field(e.at, 'epoch_ms')}"
            for e in store.session_log(scope, "op:a", "operation")
        ]

    _equal(log(_scope("t", "u1")), ["first@u1@10", "tenant-wide@-@13", "second@u1@5"], "u1, by sequence")
    _equal(log(_scope("t", "u2")), ["u2's@u2@12", "tenant-wide@-@13"], "u2")
    _equal(log(_scope("t")), ["tenant-wide@-@13"], "tenant-wide")
    _equal(log(_scope("x", "u1")), ["x's@u1@1"], "another tenant")


def _tombstones_belong_to_their_owner(store: Any) -> None:
    def stone(scope: Any, fingerprint: str, ms: int) -> Variant:
        return Variant(
            "tombstone", rec(scope=scope, fingerprint=fingerprint, length=12, kind="text", created_at=_at(ms))
        )

    store.commit(
        _principal("t"),
        [
            stone(_scope("t"), "wide", 1),
            stone(_scope("t", "u1"), "u1", 2),
            stone(_scope("t", "u2"), "u2", 3),
            stone(_scope("t", "u2"), "u1", 4),
            stone(_scope("t", "u2"), "u1", 5),
        ],
    )

    def seen(scope: Any) -> List[str]:
        return [f"{t.fingerprint}@{t.scope.user or '-'}" for t in store.tombstones(scope)]

    _equal(seen(_scope("t")), ["wide@-"], "tenant-wide")
    _equal(seen(_scope("t", "u1")), ["wide@-", "u1@u1"], "u1")
    _equal(seen(_scope("t", "u2")), ["wide@-", "u2@u2", "u1@u2"], "u2, once per owner")
    _equal(seen(_scope("x", "u1")), [], "another tenant")


def _fingerprint_key_is_derived_as_every_host_derives_it(store: Any) -> None:
    secret = store.fingerprint_secret()
    _equal(len(secret) >= 16, True, "a secret of 16 bytes or more")
    _equal(
        derive_key(bytes([7] * 32), _scope("acme", "u1")).hex(),
        "4958d2df704e1c5e8666fb063731fbeb24fd1c84c18b0f71c862ebf90c58425c",
        "the shared vector",
    )
    _equal(store.fingerprint_secret(), secret, "the same secret every time")


CHECKS: Dict[str, Callable[[Any], None]] = {
    "ids are per tenant": _ids_are_per_tenant,
    "updates and touches stay within the principal": _updates_and_touches_stay_within_the_principal,
    "scrubs stay within their scope": _scrubs_stay_within_their_scope,
    "tombstones belong to their owner": _tombstones_belong_to_their_owner,
    "a session's log shows what its scope can see": _a_session_log_shows_what_its_scope_can_see,
    "the fingerprint key is derived as every host derives it": _fingerprint_key_is_derived_as_every_host_derives_it,
}


def check_store(make_store: Callable[[], Any], codec: Any) -> List[str]:
    """Run every check, each on a fresh store from ``make_store()``, its
    records built with ``codec`` (an ``Engram``'s ``codec``); their names."""
    global _rows
    _rows = codec
    passed = []
    for name, check in CHECKS.items():
        store = make_store()
        attach = getattr(store, "attach_codec", None)
        if attach is not None:
            attach(codec)
        try:
            check(store)
        except (AssertionError, StoreError) as e:
            raise AssertionError(f"{name}: {e}") from e
        finally:
            store.close()
        passed.append(name)
    return passed
