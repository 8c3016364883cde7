"""The JSON contract of SPEC §4 (the lines the ``engram`` CLI reads and
prints) and its mapping to the component's WIT values as the ``wasmtime``
package represents them: ``Record`` objects whose attributes carry the WIT
field names (``epoch-ms``), ``Variant(tag, payload)`` for variants whose
cases cannot be told apart by Python type, plain values (``None`` for an
absent option) otherwise.

Input converters validate and raise ``EngramError("invalid-input")`` naming
the item index and the dotted field; output converters build the CLI's field
names, so a program can move between the CLI and this library freely.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from typing import Any, Callable, Dict, List, Optional

from wasmtime.component import Record, Variant

from .errors import EngramError

MEMORY_KINDS = ("semantic", "episodic", "procedural")
CANDIDATE_KINDS = ("semantic", "episodic", "procedural", "working", "none")
SOURCE_KINDS = ("user", "system", "document", "tool", "behavior", "agent")
SENSITIVITIES = ("public", "internal", "personal", "sensitive")
STATUSES = ("pending", "active", "superseded", "retracted", "expired", "conflicted", "archived")
ROLES = ("system", "user", "assistant", "tool")
VERDICTS = ("approve", "reject")


def rec(**fields: Any) -> Record:
    """A WIT record; ``snake_case`` keyword names become WIT ``kebab-case``."""
    r = Record()
    for name, value in fields.items():
        setattr(r, name.replace("_", "-"), value)
    return r


def field(r: Any, name: str) -> Any:
    """A WIT record's field by its ``snake_case`` name."""
    return getattr(r, name.replace("_", "-"))


# ---------------------------------------------------------------- time

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?)?$"
)
_EPOCH = _dt.datetime(1970, 1, 1)


def parse_datetime(text: Any) -> Optional[Record]:
    """An instant as the Rust host parses it: RFC 3339 with an offset, a
    date-time without one (UTC), or a date (UTC midnight). ``None`` if
    malformed."""
    if not isinstance(text, str):
        return None
    m = _RFC3339.match(text.strip())
    if not m:
        return None
    y, mo, d, h, mi, s, frac, _z, sign, oh, om = m.groups()
    offset = 0
    if sign:
        if int(oh) > 23 or int(om) > 59:
            return None
        offset = (int(oh) * 60 + int(om)) * (-1 if sign == "-" else 1)
    try:
        local = _dt.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError:
        return None
    millis = int((frac or "").ljust(3, "0")[:3])
    delta = local - _EPOCH
    epoch_ms = (delta.days * 86_400 + delta.seconds) * 1000 + millis - offset * 60_000
    return rec(epoch_ms=epoch_ms, offset_minutes=offset)


def format_datetime(dt: Any) -> str:
    """A WIT ``datetime`` as RFC 3339 in its own offset (like the CLI)."""
    epoch_ms = field(dt, "epoch_ms")
    offset = field(dt, "offset_minutes")
    t = _EPOCH + _dt.timedelta(milliseconds=epoch_ms + offset * 60_000)
    out = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    if epoch_ms % 1000 != 0:
        out += f".{t.microsecond // 1000:03d}"
    if offset == 0:
        return out + "Z"
    a = abs(offset)
    return f"{out}{'-' if offset < 0 else '+'}{a // 60:02d}:{a % 60:02d}"


def to_datetime(value: Any, name: str = "now") -> Record:
    """A WIT ``datetime`` from an RFC 3339 string, an aware ``datetime`` or a record."""
    if isinstance(value, str):
        dt = parse_datetime(value)
        if dt is None:
            raise EngramError.input(name, f"'{value}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)")
        return dt
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.astimezone()
        offset = value.utcoffset()
        minutes = int(offset.total_seconds() // 60) if offset is not None else 0
        millis = (value - _EPOCH.replace(tzinfo=_dt.timezone.utc)) // _dt.timedelta(milliseconds=1)
        return rec(epoch_ms=millis, offset_minutes=minutes)
    if isinstance(value, Record) and hasattr(value, "epoch-ms"):
        return value
    raise EngramError.input(name, "expected an RFC 3339 string or a datetime")


# ---------------------------------------------------------------- input


def _utf8(s: str) -> bytes:
    return s.encode("utf-8")


def entries_from(mapping: Dict[str, Any]) -> List[Record]:
    """A string→string map as WIT entries: sorted by key, nulls dropped,
    other values as their JSON text."""
    out = []
    for key in sorted((k for k, v in mapping.items() if v is not None), key=_utf8):
        v = mapping[key]
        value = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        out.append(rec(key=key, value=value))
    return out


class _Reader:
    """Reads one input object, recording the dotted path of every field."""

    def __init__(self, value: Dict[str, Any], index: Optional[int], path: str = ""):
        self.value = value
        self.index = index
        self.path = path

    def fail(self, name: str, message: str) -> None:
        raise EngramError.input(f"{self.path}.{name}" if self.path else name, message, self.index)

    def get(self, name: str) -> Any:
        return self.value.get(name)

    def string(self, name: str, required: bool = False) -> Optional[str]:
        v = self.get(name)
        if v is None:
            if required:
                self.fail(name, "missing field")
            return None
        if not isinstance(v, str):
            self.fail(name, "expected a string")
        return v

    def number(self, name: str, integer: bool = False, lo: Optional[float] = None, hi: Optional[float] = None):
        v = self.get(name)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
            self.fail(name, "expected a number")
        if integer and not (isinstance(v, int) or float(v).is_integer()):
            self.fail(name, "expected an integer")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(name, f"expected a number in [{lo}, {hi}]")
        return int(v) if integer else float(v)

    def boolean(self, name: str) -> Optional[bool]:
        v = self.get(name)
        if v is None:
            return None
        if not isinstance(v, bool):
            self.fail(name, "expected true or false")
        return v

    def one_of(self, name: str, names, required: bool = False) -> Optional[str]:
        v = self.string(name, required)
        if v is not None and v not in names:
            self.fail(name, f"unknown variant {v!r}, expected one of {', '.join(names)}")
        return v

    def time(self, name: str) -> Optional[Record]:
        v = self.get(name)
        if v is None:
            return None
        dt = parse_datetime(v)
        if dt is None:
            self.fail(name, f"'{v}' is not an RFC 3339 instant (e.g. 2026-08-01T10:00:00+08:00)")
        return dt

    def object(self, name: str, required: bool = False) -> Optional["_Reader"]:
        v = self.get(name)
        if v is None:
            if required:
                self.fail(name, "missing field")
            return None
        if not isinstance(v, dict):
            self.fail(name, "expected an object")
        return _Reader(v, self.index, f"{self.path}.{name}" if self.path else name)

    def array(self, name: str) -> Optional[list]:
        v = self.get(name)
        if v is None:
            return None
        if not isinstance(v, list):
            self.fail(name, "expected an array")
        return v

    def kinds(self, name: str) -> List[str]:
        out = []
        for i, k in enumerate(self.array(name) or []):
            if k not in MEMORY_KINDS:
                self.fail(f"{name}.{i}", f"expected one of {', '.join(MEMORY_KINDS)}")
            out.append(k)
        return out

    def entries(self, name: str) -> List[Record]:
        v = self.get(name)
        if v is None:
            return []
        if not isinstance(v, dict):
            self.fail(name, "expected an object of strings")
        return entries_from(v)

    def embedding(self, name: str) -> Optional[List[float]]:
        v = self.array(name)
        if v is None:
            return None
        for i, x in enumerate(v):
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                self.fail(f"{name}.{i}", "expected a number")
        return [float(x) for x in v]


def _expect_object(value: Any, index: Optional[int], what: str) -> _Reader:
    if not isinstance(value, dict):
        raise EngramError.input(what, "expected a JSON object", index)
    return _Reader(value, index)


def _scope(r: _Reader) -> Record:
    return rec(
        tenant=r.string("tenant", required=True),
        user=r.string("user"),
        project=r.string("project"),
        thread=r.string("thread"),
        agent=r.string("agent"),
    )


def scope_in(value: Any, name: str = "scope") -> Record:
    """A scope object (``{"tenant", "user"?, …}``) → WIT ``scope``."""
    r = _expect_object(value, None, name)
    r.path = name
    return _scope(r)


def _candidate(r: _Reader) -> Record:
    text = r.string("text", required=True)
    source = r.object("source", required=True)
    return rec(
        id=r.string("id"),
        text=text,
        scope=_scope(r.object("scope", required=True)),
        source=rec(kind=source.one_of("kind", SOURCE_KINDS, required=True), reference=source.string("ref")),
        observed_at=r.time("observed_at"),
        confidence=r.number("confidence"),
        kind_hint=r.one_of("kind_hint", CANDIDATE_KINDS),
        subject=r.string("subject"),
        predicate=r.string("predicate"),
        object=r.string("object"),
        condition=r.string("condition"),
        occurred_at=r.time("occurred_at"),
        valid_from=r.time("valid_from"),
        valid_to=r.time("valid_to"),
        entities=r.entries("entities"),
        embedding=r.embedding("embedding"),
    )


def candidate_in(value: Any, index: Optional[int] = None) -> Record:
    """A candidate line → WIT ``candidate``."""
    return _candidate(_expect_object(value, index, "candidate"))


def import_in(value: Any, index: Optional[int] = None) -> Record:
    """An import line (a candidate plus ``external_id`` and ``kind``) → WIT ``import-record``."""
    r = _expect_object(value, index, "record")
    return rec(
        external_id=r.string("external_id", required=True),
        kind=r.one_of("kind", MEMORY_KINDS, required=True),
        candidate=_candidate(r),
    )


def query_in(value: Any, index: Optional[int] = None) -> Record:
    """A query line → WIT ``query``."""
    r = _expect_object(value, index, "query")
    k = r.number("k", integer=True, lo=0, hi=4294967295)
    return rec(
        id=r.string("id"),
        text=r.string("query", required=True),
        scope=_scope(r.object("scope", required=True)),
        k=k if k is not None else 0,
        as_of=r.time("as_of"),
        kinds=r.kinds("kinds"),
        entities=r.entries("entities"),
        embedding=r.embedding("embedding"),
        sensitivity_ceiling=r.one_of("sensitivity_ceiling", SENSITIVITIES),
        explain_rejected=bool(r.boolean("explain")),
    )


def _snippets(r: _Reader, name: str) -> List[Record]:
    out = []
    for i, s in enumerate(r.array(name) or []):
        sr = _Reader(s if isinstance(s, dict) else {}, r.index, f"{name}.{i}")
        if not isinstance(s, dict):
            sr.fail("", "expected an object")
        text = sr.string("text") if sr.get("text") is not None else sr.string("summary", required=True)
        out.append(rec(reference=sr.string("ref", required=True), text=text))
    return out


def pack_in(value: Any) -> Record:
    """A pack request → WIT ``pack-request``."""
    r = _expect_object(value, None, "request")
    recall = r.object("recall") or _Reader({}, None, "recall")
    messages = []
    for i, m in enumerate(r.array("messages") or []):
        mr = _Reader(m if isinstance(m, dict) else {}, None, f"messages.{i}")
        if not isinstance(m, dict):
            mr.fail("", "expected an object")
        messages.append(
            rec(
                reference=mr.string("ref"),
                role=mr.one_of("role", ROLES, required=True),
                text=mr.string("text", required=True),
                priority=mr.number("priority", integer=True, lo=0, hi=255),
            )
        )
    budget = r.number("budget", integer=True, lo=0, hi=4294967295)
    if budget is None:
        r.fail("budget", "missing field")
    k = recall.number("k", integer=True, lo=0, hi=4294967295)
    return rec(
        budget=budget,
        scope=_scope(r.object("scope", required=True)),
        query=r.string("query") or "",
        system=r.string("system") or "",
        state=r.entries("state"),
        messages=messages,
        knowledge=_snippets(r, "knowledge"),
        artifacts=_snippets(r, "artifacts"),
        recall=rec(k=k if k is not None else 0, as_of=recall.time("as_of"), kinds=recall.kinds("kinds")),
    )


def forget_in(value: Any, index: Optional[int] = None) -> Variant:
    """A forget selector line (exactly one of the four shapes) → WIT ``forget-selector``."""
    r = _expect_object(value, index, "selector")
    memory_id = r.string("memory_id")
    if memory_id is not None:
        return Variant("memory-id", memory_id)
    scope_r = r.object("scope")
    if scope_r is None:
        r.fail("scope", "required unless memory_id is given")
    scope = _scope(scope_r)
    subject, predicate, text, source_ref = (r.string(n) for n in ("subject", "predicate", "text", "source_ref"))
    given = tuple(x is not None for x in (subject, predicate, text, source_ref))
    if given == (True, True, False, False):
        return Variant("key", rec(scope=scope, subject=subject, predicate=predicate, condition=r.string("condition")))
    if given == (False, False, True, False):
        return Variant("text", rec(scope=scope, text=text))
    if given == (False, False, False, True):
        return Variant("source-ref", rec(scope=scope, source_ref=source_ref))
    if given == (True, False, False, False):
        r.fail("predicate", "a key selector needs subject and predicate")
    if given == (False, True, False, False):
        r.fail("subject", "a key selector needs subject and predicate")
    r.fail("selector", "give exactly one of: memory_id; subject+predicate; text; source_ref")
    raise AssertionError("unreachable")


def review_in(value: Any, index: Optional[int] = None) -> Record:
    """A review item (``{"id", "revision", "verdict": "approve"|"reject", "reference"?}``) → WIT ``review-item``."""
    r = _expect_object(value, index, "review item")
    id = r.string("id", required=True)
    revision = r.number("revision", integer=True, lo=0, hi=0xFFFFFFFF)
    if revision is None:
        r.fail("revision", "missing field")
    verdict = r.one_of("verdict", VERDICTS, required=True)
    return rec(id=id, revision=revision, verdict=verdict, reference=r.string("reference"))


def statuses_in(statuses: Any) -> List[str]:
    """A list of status names → WIT statuses."""
    if statuses is None:
        return []
    if not isinstance(statuses, (list, tuple)):
        raise EngramError.input("statuses", "expected a list of status names")
    for i, s in enumerate(statuses):
        if s not in STATUSES:
            raise EngramError.input(f"statuses.{i}", f"expected one of {', '.join(STATUSES)}")
    return list(statuses)


def many(value: Any, convert: Callable[[Any, int], Any]) -> List[Any]:
    """One input or a list of them, converted with their indexes."""
    if isinstance(value, (list, tuple)):
        return [convert(v, i) for i, v in enumerate(value)]
    return [convert(value, 0)]


# ---------------------------------------------------------------- output


def _time(d: Any) -> Optional[str]:
    return None if d is None else format_datetime(d)


def entries_json(entries: List[Any]) -> Dict[str, str]:
    return {e.key: e.value for e in sorted(entries, key=lambda e: _utf8(e.key))}


def scope_json(s: Any) -> Dict[str, Any]:
    return {"tenant": s.tenant, "user": s.user, "project": s.project, "thread": s.thread, "agent": s.agent}


def _source_json(s: Any) -> Dict[str, Any]:
    return {"kind": s.kind, "ref": s.reference}


def decision_json(d: Any) -> Dict[str, Any]:
    """A decision, as ``engram remember`` prints it."""
    return {
        "id": field(d, "candidate_id"),
        "kind": d.kind,
        "disposition": d.disposition,
        "reasons": list(d.reasons),
        "gates": {g.gate: {"pass": g.passed, "reason": g.reason} for g in d.gates},
        "memory_id": field(d, "memory_id"),
        "revision": d.revision,
        "action": d.action,
        "confidence": d.confidence,
        "sensitivity": d.sensitivity,
        "occurred_at": _time(field(d, "occurred_at")),
        "time_expression": field(d, "time_expression"),
        "policy_version": field(d, "policy_version"),
    }


def _payload_json(p: Variant) -> Dict[str, Any]:
    v = p.payload
    if p.tag == "semantic":
        return {"subject": v.subject, "predicate": v.predicate, "object": v.object, "condition": v.condition}
    if p.tag == "episodic":
        return {
            "occurred_at": _time(field(v, "occurred_at")),
            "time_expression": field(v, "time_expression"),
            "actors": list(v.actors),
            "context": entries_json(v.context),
            "actions": list(v.actions),
            "outcome": v.outcome,
            "success": v.success,
        }
    return {
        "goal": v.goal,
        "preconditions": list(v.preconditions),
        "steps": [
            {"id": s.id, "action": s.action, "required": s.required, "side_effect": field(s, "side_effect")}
            for s in v.steps
        ],
        "guards": list(v.guards),
        "recovery": list(v.recovery),
        "authority": v.authority,
    }


def _ref_json(r: Any) -> Optional[Dict[str, Any]]:
    return None if r is None else {"id": r.id, "revision": r.revision}


def memory_json(m: Any, embedding: bool = False) -> Dict[str, Any]:
    """The full memory envelope (SPEC §2), as ``engram list``/``history`` print it."""
    prov = m.provenance
    out = {
        "id": m.id,
        "revision": m.revision,
        "kind": m.kind,
        "scope": scope_json(m.scope),
        "text": m.text,
        "payload": _payload_json(m.payload),
        "source": _source_json(prov.source),
        "source_event_ids": list(field(prov, "source_event_ids")),
        "external_id": field(prov, "external_id"),
        "extractor_version": field(prov, "extractor_version"),
        "policy_version": field(prov, "policy_version"),
        "confidence": m.confidence,
        "sensitivity": m.sensitivity,
        "observed_at": format_datetime(field(m, "observed_at")),
        "valid_from": _time(field(m, "valid_from")),
        "valid_to": _time(field(m, "valid_to")),
        "status": m.status,
        "supersedes": _ref_json(m.supersedes),
        "superseded_by": _ref_json(field(m, "superseded_by")),
        "created_at": format_datetime(field(m, "created_at")),
        "updated_at": format_datetime(field(m, "updated_at")),
        "retention": m.retention,
        "access_count": field(m, "access_count"),
        "last_accessed": _time(field(m, "last_accessed")),
        "entities": entries_json(m.entities),
    }
    if embedding and m.embedding is not None:
        out["embedding"] = list(m.embedding)
    return out


def _scored_json(s: Any) -> Dict[str, Any]:
    m, f, a = s.memory, s.features, s.admission
    return {
        "memory_id": m.id,
        "revision": m.revision,
        "external_id": field(m.provenance, "external_id"),
        "kind": m.kind,
        "status": m.status,
        "text": m.text,
        "score": s.score,
        "features": {
            "similarity": f.similarity,
            "scope": f.scope,
            "freshness": f.freshness,
            "authority": f.authority,
            "typefit": f.typefit,
            "entity": f.entity,
            "risk": f.risk,
            "embedding": f.embedding,
        },
        "admission": {
            "relevance": a.relevance,
            "scope_ok": field(a, "scope_ok"),
            "time_ok": field(a, "time_ok"),
            "task_applicable": field(a, "task_applicable"),
            "conflict": a.conflict,
            "safety_risk": field(a, "safety_risk"),
            "admit": a.admit,
            "reason": a.reason,
        },
        "source": _source_json(m.provenance.source),
        "observed_at": format_datetime(field(m, "observed_at")),
    }


def recall_json(r: Any) -> Dict[str, Any]:
    """One query's answer, as ``engram recall`` prints it."""
    out = {
        "id": field(r, "query_id"),
        "results": [_scored_json(s) for s in r.results],
        "candidates_read": field(r, "candidates_read"),
    }
    not_admitted = field(r, "not_admitted")
    if not_admitted:
        out["not_admitted"] = [_scored_json(s) for s in not_admitted]
    return out


def packed_json(p: Any) -> Dict[str, Any]:
    """A packed context and its manifest, as ``engram pack`` prints it."""
    return {
        "text": p.text,
        "tokens": p.tokens,
        "budget": p.budget,
        "sections": [{"name": s.name, "tokens": s.tokens, "items": list(s.items)} for s in p.sections],
        "dropped": [{"ref": x.reference, "reason": x.reason} for x in p.dropped],
        "compressed": [{"ref": x.reference, "summary": x.summary} for x in p.compressed],
    }


def forget_json(r: Any) -> Dict[str, Any]:
    return {"deleted": list(r.deleted), "cascaded": list(r.cascaded), "tombstones": r.tombstones}


def review_json(o: Any) -> Dict[str, Any]:
    return {
        "reviewed": _ref_json(o.reviewed),
        "verdict": o.verdict,
        "approved_as": _ref_json(field(o, "approved_as")),
        "superseded": [_ref_json(r) for r in o.superseded],
        "reason": o.reason,
    }


def sweep_json(r: Any) -> Dict[str, Any]:
    return {
        "expired": r.expired,
        "archived": r.archived,
        "inferences_expired": field(r, "inferences_expired"),
        "examined": r.examined,
    }


def receipt_json(r: Any) -> Dict[str, Any]:
    return {"external_id": field(r, "external_id"), "memory_id": field(r, "memory_id")}


# ---------------------------------------------------------------- memory rows


def _time_from(value: Any, name: str) -> Optional[Record]:
    if value is None:
        return None
    dt = parse_datetime(value)
    if dt is None:
        raise ValueError(f"corrupt memory row: {name} {value!r} is not an instant")
    return dt


def memory_from_json(j: Dict[str, Any]) -> Record:
    """A memory envelope read back from ``memory_json(m, embedding=True)`` (the
    SQLite row body, the Rust host's format). The payload variant follows
    the envelope's ``kind``."""
    p = j.get("payload") or {}
    kind = j["kind"]
    if kind == "semantic":
        payload = Variant(
            "semantic",
            rec(subject=p["subject"], predicate=p["predicate"], object=p["object"], condition=p.get("condition")),
        )
    elif kind == "episodic":
        payload = Variant(
            "episodic",
            rec(
                occurred_at=_time_from(p.get("occurred_at"), "occurred_at"),
                time_expression=p.get("time_expression"),
                actors=list(p.get("actors") or []),
                context=entries_from(p.get("context") or {}),
                actions=list(p.get("actions") or []),
                outcome=p.get("outcome"),
                success=p.get("success"),
            ),
        )
    else:
        payload = Variant(
            "procedural",
            rec(
                goal=p.get("goal") or "",
                preconditions=list(p.get("preconditions") or []),
                steps=[
                    rec(id=s["id"], action=s["action"], required=bool(s["required"]), side_effect=bool(s["side_effect"]))
                    for s in p.get("steps") or []
                ],
                guards=list(p.get("guards") or []),
                recovery=list(p.get("recovery") or []),
                authority=p.get("authority"),
            ),
        )
    s = j["scope"]
    ref = lambda r: None if not r else rec(id=r["id"], revision=int(r["revision"]))  # noqa: E731
    embedding = j.get("embedding")
    return rec(
        id=j["id"],
        revision=int(j["revision"]),
        kind=kind,
        scope=rec(
            tenant=s["tenant"], user=s.get("user"), project=s.get("project"), thread=s.get("thread"), agent=s.get("agent")
        ),
        text=j["text"],
        payload=payload,
        provenance=rec(
            source=rec(kind=j["source"]["kind"], reference=j["source"].get("ref")),
            source_event_ids=list(j.get("source_event_ids") or []),
            external_id=j.get("external_id"),
            extractor_version=j["extractor_version"],
            policy_version=j["policy_version"],
        ),
        confidence=float(j["confidence"]),
        sensitivity=j["sensitivity"],
        observed_at=_time_from(j["observed_at"], "observed_at"),
        valid_from=_time_from(j.get("valid_from"), "valid_from"),
        valid_to=_time_from(j.get("valid_to"), "valid_to"),
        status=j["status"],
        supersedes=ref(j.get("supersedes")),
        superseded_by=ref(j.get("superseded_by")),
        created_at=_time_from(j["created_at"], "created_at"),
        updated_at=_time_from(j["updated_at"], "updated_at"),
        retention=j["retention"],
        access_count=int(j.get("access_count") or 0),
        last_accessed=_time_from(j.get("last_accessed"), "last_accessed"),
        entities=entries_from(j.get("entities") or {}),
        embedding=[float(x) for x in embedding] if isinstance(embedding, list) else None,
    )
