"""The Python host: runs the Engram component in ``wasmtime`` (the PyPI
package, the same Wasmtime release as the Rust host), supplies its imports
(a store opened per principal and a clock) and exposes the policy with the
JSON shapes of the ``engram`` CLI. It is a transport: every method hands its
argument, as JSON, to the component's ``json`` export (the contract, written
once in Rust) and parses the JSON Lines it answers.

The WASI CLI/IO interfaces that Rust's std links into the component are
defined with ``Linker.define_unknown_imports_as_traps``, exactly as the Rust
host does: no WASI context is created, so nothing (environment, stdio,
exit) is granted, and a guest reaching one of them traps.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from wasmtime import Config, Engine, Store, WasmtimeError
from wasmtime.component import Component, Linker, Record, Variant

from . import _speedups
from .errors import EngramError, EngramTrap, StoreError
from .fingerprint import derive_key, owner_of, sees_owner
from .records import field, rec
from .store import SqliteStore, check_scope, denial

PrincipalLike = Union[str, Dict[str, Optional[str]]]

#: Whether the type-structure memoisation of ``_speedups`` is active.
SPEEDUPS = _speedups.apply()

_EPOCH_TICK = 0.01  # seconds; deadlines are counted in ticks

#: The component this package ships (``build_wheel.py`` copies it in).
COMPONENT = Path(__file__).resolve().parent / "engram-memory.wasm"


def _principal(p: PrincipalLike) -> Record:
    if isinstance(p, str) and p:
        return rec(tenant=p, user=None, project=None)
    if isinstance(p, dict) and isinstance(p.get("tenant"), str):
        for k in ("user", "project"):
            if p.get(k) is not None and not isinstance(p[k], str):
                raise EngramError.input(f"principal.{k}", "expected a string")
        return rec(tenant=p["tenant"], user=p.get("user"), project=p.get("project"))
    raise EngramError.input("principal", "expected a tenant name or {'tenant': …, 'user'?: …, 'project'?: …}")


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _from_datetime(value: _dt.datetime) -> Record:
    """A WIT ``datetime`` of a ``datetime`` (a naive one in local time)."""
    if value.tzinfo is None:
        value = value.astimezone()
    offset = value.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    millis = (value - _EPOCH) // _dt.timedelta(milliseconds=1)
    return rec(epoch_ms=millis, offset_minutes=minutes)


def _system_now() -> Record:
    return _from_datetime(_dt.datetime.now().astimezone())


def _to_datetime(value: Any, name: str, parse: Callable[[str], Any]) -> Record:
    """A WIT ``datetime`` from a ``datetime``, a record, or an RFC 3339
    string (parsed by the component's contract)."""
    if isinstance(value, _dt.datetime):
        return _from_datetime(value)
    if isinstance(value, str):
        parsed = parse(value)
        if isinstance(parsed, Variant):
            raise EngramError.input(name, field(parsed.payload, "message"))
        return parsed
    if isinstance(value, Record) and hasattr(value, "epoch-ms"):
        return value
    raise EngramError.input(name, "expected an RFC 3339 string or a datetime")


def _clock(now: Any, parse: Callable[[str], Any]) -> Callable[[], Record]:
    if now is None:
        return _system_now
    if callable(now):
        return lambda: _to_datetime(now(), "now()", parse)
    fixed = _to_datetime(now, "now", parse)
    return lambda: fixed


def _wasmtime_version() -> str:
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # not installed as a distribution (e.g. vendored)
        return "unknown"


def default_cache_dir() -> Optional[Path]:
    """Where compiled components are cached (the Rust host's rule)."""
    if os.environ.get("ENGRAM_CACHE_DIR"):
        return Path(os.environ["ENGRAM_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "engram"
    if os.environ.get("HOME"):
        return Path(os.environ["HOME"]) / ".cache" / "engram"
    return None


class _Ticker:
    """Advances the engine's epoch every tick until stopped (deadlines)."""

    def __init__(self, engine: Engine):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(engine,), name="engram-epoch", daemon=True)
        self._thread.start()

    def _run(self, engine: Engine) -> None:
        while not self._stop.wait(_EPOCH_TICK):
            engine.increment_epoch()

    def stop(self) -> None:
        self._stop.set()


_POLICY = "engram:memory/policy@0.1.0"
_JSON = "engram:memory/json@0.1.0"

#: The typed ``policy`` export's functions (``call_raw``).
_EXPORTS = (
    "classify",
    "remember",
    "import-records",
    "recall",
    "pack",
    "forget",
    "sweep",
    "history",
    "list-memories",
    "review",
    "record-operations",
    "get-operations",
    "info",
)

#: The ``json`` export's functions.
_JSON_EXPORTS = ("call", "encode-memory", "decode-memories", "parse-datetime")


class _Codec:
    """A second instance, never inside a policy call, for what must run
    while one is in progress: parsing the clock's instants and the store's
    row bodies (the contract's memory envelope)."""

    def __init__(self, engram: "Engram"):
        self._store, funcs = engram._instance(_JSON, _JSON_EXPORTS)
        self._funcs = funcs

    def parse_datetime(self, text: str) -> Any:
        return self._funcs["parse-datetime"](self._store, text)

    def encode_memory(self, memory: Record) -> str:
        return self._funcs["encode-memory"](self._store, memory)

    def decode_memories(self, bodies: List[str]) -> List[Record]:
        out = self._funcs["decode-memories"](self._store, bodies)
        if isinstance(out, Variant):
            e = out.payload
            raise StoreError("backend", f"corrupt memory row {field(e, 'index')}: {field(e, 'message')}")
        return out


class Engram:
    """One loaded policy component with a store and a clock.

    ``component`` is the path of an ``engram-memory.wasm``; default: the
    component this package ships (``COMPONENT``). ``principal`` (a
    tenant name or ``{"tenant", "user"?, "project"?}``) is who this handle
    acts for: the store refuses every scope outside it. ``store`` defaults to
    an in-memory ``SqliteStore(":memory:")``. ``now`` fixes the clock (RFC
    3339 string or aware ``datetime``) or supplies one (a callable);
    default: system time. ``timeout`` (seconds) and ``memory_limit`` (bytes)
    bound every call, like the Rust host's limits.
    """

    def __init__(
        self,
        component: Union[str, os.PathLike, None] = None,
        *,
        principal: PrincipalLike,
        store: Any = None,
        now: Any = None,
        timeout: Optional[float] = 120.0,
        memory_limit: int = 1 << 30,
        cache_dir: Union[str, os.PathLike, None, bool] = True,
    ):
        self._principal = _principal(principal)
        self._store_impl = store if store is not None else SqliteStore(":memory:")
        self._timeout = timeout
        self._memory_limit = memory_limit
        self._active: Optional[Record] = None
        self.traps = 0
        self.last_trap: Optional[BaseException] = None

        config = Config()
        config.epoch_interruption = timeout is not None
        self._engine = Engine(config)
        path = Path(component) if component is not None else COMPONENT
        try:
            wasm = path.read_bytes()
        except OSError as e:
            raise FileNotFoundError(
                f"cannot read the component at {path}: {e}"
            ) from e
        self.sha256 = hashlib.sha256(wasm).hexdigest()
        self.component_path = str(path)
        cache = default_cache_dir() if cache_dir is True else (Path(cache_dir) if cache_dir else None)
        self._component = self._load(wasm, cache, timeout is not None)
        self._linker = self._link()
        self._ticker = _Ticker(self._engine) if timeout is not None else None
        self._codec = _Codec(self)
        self._now = _clock(now, self._codec.parse_datetime)
        attach = getattr(self._store_impl, "attach_codec", None)
        if attach is not None:
            attach(self._codec)
        self._instantiate()

    @classmethod
    def open(cls, component: Union[str, os.PathLike, None] = None, **options: Any) -> "Engram":
        """Same as the constructor (reads better at call sites)."""
        return cls(component, **options)

    # ------------------------------------------------------------ loading

    def _load(self, wasm: bytes, cache: Optional[Path], epochs: bool) -> Component:
        if cache is not None:
            key = f"{self.sha256[:32]}-py-wasmtime-{_wasmtime_version()}-{int(epochs)}.cwasm"
            path = cache / key
            if path.exists():
                try:
                    # Our own cache directory, written below by serialize()
                    # with an engine of the same version and configuration.
                    return Component.deserialize(self._engine, path.read_bytes())
                except WasmtimeError:
                    pass  # damaged or incompatible: recompile
        component = Component(self._engine, wasm)
        if cache is not None:
            try:
                cache.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(bytes(component.serialize()))
                tmp.replace(path)
            except OSError:
                pass  # caching is an optimisation only
        return component

    def _imported(self, prefix: str) -> str:
        for name in self._component.type.imports(self._engine):
            if name.startswith(prefix + "@") or name == prefix:
                return name
        raise EngramError("unsupported", f"the component does not import {prefix}")

    def _link(self) -> Linker:
        linker = Linker(self._engine)
        with linker.root() as root:
            with root.add_instance(self._imported("engram:memory/clock")) as clock:
                clock.add_func("now", lambda _s: self._now())
            with root.add_instance(self._imported("engram:memory/store")) as st:
                st.add_func("current-principal", lambda _s: self._current())
                st.add_func("find", self._guard(lambda f, limit: (self._check(f.scope), self._store_impl.find(f, limit))[1]))
                st.add_func("revisions", self._guard(lambda id: self._store_impl.revisions(self._current(), id)))
                st.add_func("stats", self._guard(lambda f, terms: (self._check(f.scope), self._store_impl.stats(f, terms))[1]))
                st.add_func(
                    "search",
                    self._guard(lambda f, terms, limit: (self._check(f.scope), self._store_impl.search(f, terms, limit))[1]),
                )
                st.add_func("commit", self._guard(self._commit))
                st.add_func(
                    "tombstones",
                    self._guard(lambda scope: (self._check(scope), self._store_impl.tombstones(owner_of(scope)))[1]),
                )
                st.add_func("fingerprint-key", self._guard(self._fingerprint_key))
                st.add_func(
                    "count-events",
                    self._guard(
                        lambda scope, kind, since: (self._check(scope), self._store_impl.count_events(scope, kind, since))[1]
                    ),
                )
                st.add_func(
                    "session-log",
                    self._guard(
                        lambda scope, session, kind: (
                            self._check(scope),
                            self._store_impl.session_log(scope, session, kind),
                        )[1]
                    ),
                )
        # WASI CLI/IO (linked by Rust's std): traps, no capability.
        linker.define_unknown_imports_as_traps(self._component)
        return linker

    def _instance(self, interface: str, names: tuple, extra: Optional[tuple] = None) -> tuple:
        """A fresh instance in a store of its own, and the functions
        ``names`` of its export ``interface`` (and ``extra`` of ``_JSON``)."""
        store = Store(self._engine)
        store.set_limits(memory_size=self._memory_limit)
        if self._timeout is not None:
            store.set_epoch_deadline(1 << 62)
        instance = self._linker.instantiate(store, self._component)
        funcs = {}
        for iface, wanted in ((interface, names), (_JSON, extra or ())):
            export = instance.get_export_index(store, iface)
            if export is None:
                raise EngramError("unsupported", f"the component does not export {iface}")
            for name in wanted:
                index = instance.get_export_index(store, name, export)
                func = instance.get_func(store, index) if index is not None else None
                if func is None:
                    raise EngramError("unsupported", f"the component does not export {iface}.{name}")
                funcs[name if iface == interface else f"json.{name}"] = func
        return store, funcs

    def _instantiate(self) -> None:
        self._wstore, self._funcs = self._instance(_POLICY, _EXPORTS, ("call",))

    # ------------------------------------------------------------ imports

    def _current(self) -> Record:
        if self._active is None:
            raise RuntimeError("store called outside a policy call")
        return self._active

    def _check(self, scope: Any) -> None:
        check_scope(self._current(), scope)

    @staticmethod
    def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
        """A store import: ``StoreError`` becomes the guest's ``store-error``;
        any other exception traps the call (and is re-raised to the caller)."""

        def call(_store: Any, *args: Any) -> Any:
            try:
                return fn(*args)
            except StoreError as e:
                return Variant(e.kind, e.detail)

        return call

    def _fingerprint_key(self, scope: Any) -> bytes:
        """The key of an owner the principal can see, never another's."""
        p = self._current()
        owner = owner_of(scope)
        if not sees_owner(p, owner):
            raise StoreError("denied", denial(p, owner) or "that owner is outside this store handle's principal")
        return derive_key(self._store_impl.fingerprint_secret(), owner)

    def _commit(self, ops: List[Variant]) -> Record:
        p = self._current()
        for op in ops:
            if op.tag in ("insert", "update"):
                check_scope(p, op.payload.memory.scope)
            elif op.tag in ("append", "scrub-events"):
                check_scope(p, op.payload.scope)
            elif op.tag == "tombstone":
                # Owned by the principal or narrower: never another user's
                # scope, nor the whole tenant for a user-pinned handle.
                check_scope(p, op.payload.scope)
                if op.payload.scope.thread is not None or op.payload.scope.agent is not None:
                    raise StoreError(
                        "invalid", "a tombstone is owned by a tenant, user and project: its thread and agent must be unset"
                    )
        return self._store_impl.commit(p, ops)

    # ------------------------------------------------------------ calls

    def _call(self, name: str, *args: Any, principal: Optional[PrincipalLike] = None) -> Any:
        self._active = _principal(principal) if principal is not None else self._principal
        if self._timeout is not None:
            self._wstore.set_epoch_deadline(max(1, int(self._timeout / _EPOCH_TICK)))
        try:
            result = self._funcs[name](self._wstore, *args)
        except BaseException as e:  # a trap, or a host import that raised
            if not isinstance(e, Exception):  # KeyboardInterrupt, SystemExit: mid-call, so start afresh
                self._instantiate()
                raise
            self.traps += 1
            self.last_trap = e
            message = str(e)
            if "interrupt" in message:
                message = f"the policy call ran past its time limit of {self._timeout}s and was stopped"
            try:
                self._instantiate()
            except Exception as again:  # pragma: no cover - instantiation of a valid component
                raise EngramTrap(f"{message} (and re-instantiating failed: {again})") from e
            raise EngramTrap(f"the policy component trapped: {message}") from e
        finally:
            self._active = None
        if isinstance(result, Variant):
            raise _policy_error(result)
        return result

    def call_raw(self, export: str, *args: Any, principal: Optional[PrincipalLike] = None) -> Any:
        """Advanced: call a typed ``policy`` export by its WIT name
        (``"recall"``, ``"list-memories"``, …) with WIT values as ``wasmtime``
        represents them (``Record``, ``Variant``) and no JSON. Errors and
        traps are handled as for every other call."""
        if export not in _EXPORTS:
            raise EngramError.input("export", f"expected one of {', '.join(_EXPORTS)}")
        return self._call(export, *args, principal=principal)

    def call(self, operation: str, input: Any, *, principal: Optional[PrincipalLike] = None) -> List[Any]:
        """Run an operation of the JSON contract by name (``"remember"``,
        ``"recall"``, … ; SPEC §4) on ``input`` (a value, or JSON / JSON Lines
        text) and return the values of the JSON Lines it answers."""
        text = input if isinstance(input, str) else json.dumps(input, ensure_ascii=False)
        out = self._call("json.call", operation, text, principal=principal)
        return [json.loads(line) for line in out.split("\n") if line]

    def classify(self, candidates: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Classify and gate candidates without storing anything. A candidate is
        ``{"text", "scope": {"tenant", …}, "source": {"kind", "ref"?}, …}``;
        pass one for one decision, a list for a list."""
        return _one_or_many(candidates, self.call("classify", _batch(candidates), principal=principal))

    def remember(self, candidates: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Classify, gate, resolve and store candidates in one atomic commit."""
        return _one_or_many(candidates, self.call("remember", _batch(candidates), principal=principal))

    def import_records(self, records: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Bulk-load already-decided records (``{"external_id", "kind", …candidate}``)."""
        return _one_or_many(records, self.call("import", _batch(records), principal=principal))

    def recall(self, queries: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Rank memories for one query (``{"query", "scope", "k"?, …}``) or a list of them."""
        return _one_or_many(queries, self.call("recall", _batch(queries), principal=principal))

    def pack(self, request: Dict[str, Any], *, principal: Optional[PrincipalLike] = None) -> Dict[str, Any]:
        """Assemble a model's context under a token budget."""
        return self.call("pack", request, principal=principal)[0]

    def forget(self, selectors: Any, *, principal: Optional[PrincipalLike] = None) -> Dict[str, Any]:
        """Forget by ``{"memory_id"}``, ``{"scope", "subject", "predicate"}``,
        ``{"scope", "text"}`` or ``{"scope", "source_ref"}`` (one or a list):
        one report for all."""
        return self.call("forget", _batch(selectors), principal=principal)[0]

    def sweep(self, scope: Dict[str, Any], *, principal: Optional[PrincipalLike] = None) -> Dict[str, Any]:
        """Apply expiry and archival rules in a scope."""
        return self.call("sweep", {"scope": scope}, principal=principal)[0]

    def review(self, items: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Approve or reject pending memories (``{"id", "revision", "verdict":
        "approve"|"reject", "reference"?}``, one or a list) in one atomic
        commit: an approval writes a new active revision with the reviewer as
        its source; a rejection retracts the pending one."""
        return _one_or_many(items, self.call("review", _batch(items), principal=principal))

    def record_operations(self, records: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Record what tool side effects did, by operation id (``{"operation_id",
        "scope", "tool", "status": "submitted"|"succeeded"|"failed"|"unknown",
        "idempotency_key"?, "result_ref"?, "result_digest"?, "detail"?, "at"?}``,
        one or a list), in one atomic commit: each answers ``{"action":
        "created"|"updated"|"duplicate", "operation_id", "revision", "status"}``.
        A final status, the tool, the idempotency key and the scope of an
        operation never change: such a record is refused (``invalid-input``
        naming the item and the field) and nothing is written."""
        return _one_or_many(records, self.call("record-operations", _batch(records), principal=principal))

    def get_operations(self, lookups: Any, *, principal: Optional[PrincipalLike] = None) -> Any:
        """Look operations up by id, exactly (``{"operation_id", "scope"}``, one
        or a list): the latest record beside ``found``, ``revision`` and
        ``history``, or ``{"found": False, "history": [], "operation_id",
        "revision": 0}`` when none is visible from the scope. Never a
        similarity search."""
        return _one_or_many(lookups, self.call("get-operations", _batch(lookups), principal=principal))

    def history(self, id: str, *, principal: Optional[PrincipalLike] = None) -> List[Dict[str, Any]]:
        """Every revision of one memory, oldest first."""
        return self.call("history", {"id": id}, principal=principal)

    def list_memories(
        self, scope: Dict[str, Any], statuses: Optional[List[str]] = None, *, principal: Optional[PrincipalLike] = None
    ) -> List[Dict[str, Any]]:
        """Memories visible in a scope (latest revisions), optionally only some statuses."""
        return self.call("list", {"scope": scope, "statuses": statuses or []}, principal=principal)

    def info(self) -> Dict[str, str]:
        """``{"package_version", "policy_version"}`` of the loaded component."""
        return self.call("info", "{}", principal={"tenant": ""})[0]

    @property
    def store(self) -> Any:
        return self._store_impl

    @property
    def codec(self) -> Any:
        """The component's memory row codec (``encode_memory``,
        ``decode_memories`` on WIT records): what ``SqliteStore`` keeps a row
        body with, and what the store checks build their records with."""
        return self._codec

    def close(self) -> None:
        """Stop the deadline ticker and close the store."""
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        close = getattr(self._store_impl, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _batch(value: Any) -> str:
    """One item or a list of them, as the JSON array the contract reads."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return json.dumps(items, ensure_ascii=False)


def _one_or_many(given: Any, results: List[Any]) -> Any:
    return results if isinstance(given, (list, tuple)) else results[0]


def _policy_error(v: Variant) -> EngramError:
    if v.tag == "invalid-input":
        e = v.payload
        return EngramError("invalid-input", e.message, field=e.field, index=e.index)
    return EngramError(v.tag, str(v.payload))
