"""Unit tests of the Python host: SQLite store semantics, typed errors, the
capability check, trap recovery and persistence.

    python -m unittest discover -s tests -t .      (from packages/python, with
                                                    the wheel installed)

ENGRAM_COMPONENT names another component (default: the installed package's).
"""

from __future__ import annotations

import os
import tempfile
import unittest

from wasmtime.component import Variant  # noqa: E402

from engram_memory import Engram, EngramError, EngramTrap, SqliteStore, StoreError  # noqa: E402
from engram_memory.records import rec  # noqa: E402

COMPONENT = os.environ.get("ENGRAM_COMPONENT")  # default: the installed package's
NOW = "2026-08-01T10:00:00+08:00"
#: NOW as the WIT ``datetime`` (2026-08-01T02:00:00Z, in UTC+8).
NOW_DT = rec(epoch_ms=1785549600000, offset_minutes=480)
ACME = rec(tenant="acme", user=None, project=None)


def memory(id="m-1", revision=1, status="active", subject="s", scope=None):
    return rec(
        id=id,
        revision=revision,
        kind="semantic",
        scope=scope or rec(tenant="acme", user=None, project=None, thread=None, agent=None),
        text=f"{subject} p",
        payload=Variant("semantic", rec(subject=subject, predicate="p", object="o", condition=None)),
        provenance=rec(
            source=rec(kind="user", reference="evt-1"),
            source_event_ids=["evt-1"],
            external_id=None,
            thread=None,
            extractor_version="x",
            policy_version="y",
        ),
        confidence=0.9,
        sensitivity="internal",
        observed_at=NOW_DT,
        valid_from=None,
        valid_to=None,
        status=status,
        supersedes=None,
        superseded_by=None,
        created_at=NOW_DT,
        updated_at=NOW_DT,
        retention="standard",
        access_count=0,
        last_accessed=None,
        entities=[rec(key="b", value="2"), rec(key="a", value="1")],
        embedding=None,
    )


def flt(**extra):
    fields = dict(
        scope=rec(tenant="acme", user=None, project=None, thread=None, agent=None),
        scope_match="visible",
        kinds=[],
        statuses=[],
        valid_at=None,
        sensitivity_max=None,
        subject=None,
        predicate=None,
        condition=Variant("none"),
        source_ref=None,
        exclude_archived=False,
    )
    fields.update(extra)
    return rec(**fields)


def insert(m, terms=("alpha",)):
    return Variant("insert", rec(memory=m, index_terms=list(terms)))


def update(m, etag, terms=("alpha",)):
    return Variant("update", rec(memory=m, index_terms=list(terms), expected_etag=etag))


def append(session, tenant="acme"):
    scope = rec(tenant=tenant, user=None, project=None, thread=None, agent=None)
    return Variant("append", rec(session=session, scope=scope, kind="decision", payload="x", at=NOW_DT))


class SqliteStoreSemantics(unittest.TestCase):
    def setUp(self):
        self.s = SqliteStore(":memory:")
        # The component encodes and decodes the rows' bodies.
        self.engram = Engram(COMPONENT, principal="acme", store=self.s)

    def tearDown(self):
        self.s.close()

    def test_etags_start_at_one_and_a_stale_update_conflicts(self):
        self.assertEqual(self.s.commit(ACME, [insert(memory())]).etags, [1])
        self.assertEqual(self.s.commit(ACME, [update(memory(status="superseded"), 1)]).etags, [2])
        with self.assertRaises(StoreError) as e:
            self.s.commit(ACME, [update(memory(), 1)])
        self.assertEqual(e.exception.kind, "conflict")

    def test_a_commit_is_all_or_nothing(self):
        self.s.commit(ACME, [insert(memory())])
        with self.assertRaises(StoreError):
            self.s.commit(ACME, [insert(memory(id="m-2", subject="t")), update(memory(), 7)])
        self.assertEqual([x.memory.id for x in self.s.find(flt(), 10)], ["m-1"])

    def test_one_active_revision_per_semantic_key(self):
        self.s.commit(ACME, [insert(memory())])
        with self.assertRaises(StoreError) as e:
            self.s.commit(ACME, [insert(memory(id="m-2"))])
        self.assertEqual(e.exception.kind, "conflict")

    def test_event_sequences_count_per_tenant_and_session(self):
        self.assertEqual(self.s.commit(ACME, [append("t1"), append("t1"), append("t2")]).sequences, [1, 2, 1])
        globex = rec(tenant="globex", user=None, project=None)
        self.assertEqual(self.s.commit(globex, [append("t1", "globex")]).sequences, [1])

    def test_search_ranks_by_summed_term_weight(self):
        self.s.commit(
            ACME,
            [insert(memory(id="m-a", subject="a"), ["x"]), insert(memory(id="m-b", subject="b"), ["x", "y"])],
        )
        terms = [rec(term="x", weight=1.0), rec(term="y", weight=0.5)]
        self.assertEqual([x.memory.id for x in self.s.search(flt(), terms, 10)], ["m-b", "m-a"])
        stats = self.s.stats(flt(), ["x", "y", "nope"])
        self.assertEqual((stats.documents, stats.frequencies), (2, [2, 1, 0]))

    def test_entities_come_back_as_a_sorted_map(self):
        self.s.commit(ACME, [insert(memory())])
        self.assertEqual([e.key for e in self.s.find(flt(), 1)[0].memory.entities], ["a", "b"])


class FailingStore:
    """Delegates to a SqliteStore; raises a non-store exception while ``fail``."""

    def __init__(self):
        self.inner = SqliteStore(":memory:")
        self.fail = False

    def __getattr__(self, name):
        target = getattr(self.inner, name)
        if name in ("find", "search") and callable(target):

            def call(*args):
                if self.fail:
                    raise RuntimeError("a bug in the store")
                return target(*args)

            return call
        return target


class EngramHost(unittest.TestCase):
    scope = {"tenant": "acme", "user": "u42"}
    fact = {
        "id": "c1",
        "text": "payment-service uses PostgreSQL 16",
        "scope": {"tenant": "acme"},
        "source": {"kind": "system", "ref": "cmdb-1"},
        "subject": "service:payment-service",
        "predicate": "database",
        "object": "PostgreSQL 16",
    }

    def open(self, **options):
        options.setdefault("principal", "acme")
        options.setdefault("now", NOW)
        engram = Engram(COMPONENT, **options)
        self.addCleanup(engram.close)
        return engram

    def test_remembers_and_recalls(self):
        engram = self.open()
        d = engram.remember(self.fact)
        self.assertEqual(d["disposition"], "active")
        r = engram.recall({"query": "which database does payment-service use?", "scope": self.scope, "k": 3})
        self.assertEqual(r["results"][0]["memory_id"], d["memory_id"])
        self.assertEqual(engram.info()["package_version"], "0.1.0")

    def test_policy_errors_are_typed(self):
        engram = self.open()
        with self.assertRaises(EngramError) as e:
            engram.classify([self.fact, dict(self.fact, confidence=1.5)])
        self.assertEqual((e.exception.kind, e.exception.index, e.exception.field), ("invalid-input", 1, "confidence"))

    def test_unconvertible_input_is_invalid_input(self):
        engram = self.open()
        with self.assertRaises(EngramError) as e:
            engram.remember([{"text": "x", "scope": self.scope}])
        self.assertEqual((e.exception.field, e.exception.index), ("source", 0))
        with self.assertRaises(EngramError) as e:
            engram.recall({"query": "x", "scope": self.scope, "as_of": "yesterday"})
        self.assertEqual(e.exception.field, "as_of")

    def test_a_scope_outside_the_principal_is_denied(self):
        engram = self.open(principal={"tenant": "acme", "user": "u7"})
        with self.assertRaises(EngramError) as e:
            engram.recall({"query": "x", "scope": self.scope})
        self.assertEqual(e.exception.kind, "permission-denied")

    def test_a_trap_replaces_the_instance_and_the_next_call_works(self):
        store = FailingStore()
        engram = self.open(store=store)
        engram.remember(self.fact)
        store.fail = True
        with self.assertRaises(EngramTrap) as e:
            engram.recall({"query": "payment-service database", "scope": self.scope})
        self.assertIsInstance(e.exception.__cause__, RuntimeError)
        self.assertEqual(engram.traps, 1)
        store.fail = False
        self.assertEqual(len(engram.recall({"query": "payment-service database", "scope": self.scope})["results"]), 1)

    def test_the_sqlite_store_persists_across_handles(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.db")
            with Engram(COMPONENT, principal="acme", now=NOW, store=SqliteStore(path)) as first:
                memory_id = first.remember(self.fact)["memory_id"]
            with Engram(COMPONENT, principal="acme", now=NOW, store=SqliteStore(path)) as second:
                self.assertEqual([m["id"] for m in second.list_memories({"tenant": "acme"})], [memory_id])

    def test_review_approves_one_pending_memory_and_rejects_another(self):
        engram = self.open()
        inferred = [
            {"text": "The user prefers dark mode in the dashboard", "scope": self.scope,
             "source": {"kind": "behavior", "ref": "evt-ui-88"}, "kind_hint": "semantic",
             "subject": "user:u42", "predicate": "ui_theme", "object": "dark"},
            {"text": "order-service 部署在 AWS", "scope": self.scope, "source": {"kind": "agent", "ref": "run-17"},
             "kind_hint": "semantic", "subject": "order-service", "predicate": "部署在", "object": "AWS"},
        ]
        a, b = engram.remember(inferred)
        self.assertEqual((a["disposition"], b["disposition"]), ("pending", "pending"))
        # A bad verdict is named before the component runs; a verdict on a
        # missing revision fails the whole call, so nothing changes.
        with self.assertRaises(EngramError) as e:
            engram.review([{"id": a["memory_id"], "revision": 1, "verdict": "maybe"}])
        self.assertEqual((e.exception.kind, e.exception.field, e.exception.index), ("invalid-input", "verdict", 0))
        with self.assertRaises(EngramError) as e:
            engram.review([
                {"id": a["memory_id"], "revision": 1, "verdict": "approve"},
                {"id": b["memory_id"], "revision": 9, "verdict": "reject"},
            ])
        self.assertEqual(e.exception.kind, "not-found")
        self.assertEqual(len(engram.list_memories(self.scope, ["pending"])), 2)

        out = engram.review([
            {"id": a["memory_id"], "revision": 1, "verdict": "approve", "reference": "app:u42"},
            {"id": b["memory_id"], "revision": 1, "verdict": "reject"},
        ])
        self.assertEqual(
            [(o["verdict"], o["approved_as"]) for o in out],
            [("approve", {"id": a["memory_id"], "revision": 2}), ("reject", None)],
        )
        self.assertEqual(out[0]["reviewed"], {"id": a["memory_id"], "revision": 1})
        listed = {m["id"]: m for m in engram.list_memories(self.scope)}
        self.assertEqual((listed[a["memory_id"]]["status"], listed[a["memory_id"]]["revision"]), ("active", 2))
        self.assertEqual(listed[a["memory_id"]]["source"]["ref"], "app:u42")
        self.assertEqual(listed[b["memory_id"]]["status"], "retracted")
        # One item in, one outcome out; a reviewed revision is not pending any more.
        with self.assertRaises(EngramError) as e:
            engram.review({"id": b["memory_id"], "revision": 1, "verdict": "approve"})
        self.assertEqual((e.exception.kind, e.exception.field), ("invalid-input", "revision"))

    def test_operations_are_recorded_by_id_and_looked_up_exactly(self):
        engram = self.open()

        def refund(status, **extra):
            return dict({"operation_id": "op_891", "scope": dict(self.scope, thread="t1"), "tool": "issue_refund",
                         "status": status, "idempotency_key": "payment-42-order-991"}, **extra)

        self.assertEqual(
            engram.record_operations(refund("submitted")),
            {"action": "created", "operation_id": "op_891", "revision": 1, "status": "submitted"},
        )
        out = engram.record_operations([refund("submitted"), refund("succeeded", result_ref="artifact://r/op_891.json")])
        self.assertEqual([(r["action"], r["revision"], r["status"]) for r in out],
                         [("duplicate", 1, "submitted"), ("updated", 2, "succeeded")])
        # A final status never changes; the item and field are named, nothing is written.
        with self.assertRaises(EngramError) as e:
            engram.record_operations([refund("submitted", operation_id="op_892"), refund("failed")])
        self.assertEqual((e.exception.kind, e.exception.field, e.exception.index), ("invalid-input", "status", 1))
        self.assertIn("already succeeded", e.exception.detail)
        own, other = engram.get_operations([
            {"operation_id": "op_891", "scope": self.scope},
            {"operation_id": "op_892", "scope": self.scope},
        ])
        self.assertEqual((own["found"], own["revision"], own["status"], own["result_ref"], own["scope"]["thread"]),
                         (True, 2, "succeeded", "artifact://r/op_891.json", "t1"))
        self.assertEqual([h["status"] for h in own["history"]], ["submitted", "succeeded"])
        self.assertEqual(other, {"found": False, "history": [], "operation_id": "op_892", "revision": 0})
        # Another user's lookup finds nothing; a principal pinned to that user
        # may not look into u42's scope.
        self.assertFalse(engram.get_operations({"operation_id": "op_891", "scope": {"tenant": "acme", "user": "u7"}})["found"])
        with self.assertRaises(EngramError) as e:
            engram.get_operations({"operation_id": "op_891", "scope": self.scope}, principal={"tenant": "acme", "user": "u7"})
        self.assertEqual(e.exception.kind, "permission-denied")
        # Not a memory: recall never returns it.
        r = engram.recall({"query": "issue_refund op_891 refund", "scope": self.scope, "explain": True})
        self.assertEqual((r["results"], r.get("not_admitted", [])), ([], []))

    def test_the_clock_can_be_a_callable(self):
        now = {"value": NOW}
        engram = self.open(now=lambda: now["value"])
        now["value"] = "2026-09-01T08:00:00Z"
        d = engram.remember(self.fact)
        self.assertEqual(engram.history(d["memory_id"])[0]["observed_at"], "2026-09-01T08:00:00Z")

    def test_instants_round_trip_in_their_own_offset(self):
        engram = self.open()
        for i, s in enumerate(("2026-08-01T10:00:00+08:00", "2026-08-01T02:00:00Z", "2026-08-01T10:00:00.250-03:30")):
            d = engram.remember(dict(self.fact, text=f"service-{i} uses PostgreSQL 16", subject=f"service:{i}", observed_at=s))
            self.assertEqual(engram.history(d["memory_id"])[-1]["observed_at"], s)
        with self.assertRaises(EngramError) as e:
            engram.remember(dict(self.fact, observed_at="2026-02-30T00:00:00Z"))
        self.assertEqual((e.exception.field, e.exception.index), ("observed_at", 0))
        with self.assertRaises(EngramError) as e:
            self.open(now="yesterday")
        self.assertEqual(e.exception.field, "now")


if __name__ == "__main__":
    unittest.main()
