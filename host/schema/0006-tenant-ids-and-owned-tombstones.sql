-- Migration 6: memory ids are unique per tenant, not across the whole
-- store (one tenant can no longer squat another's id, and a conflict
-- never confirms that an id exists elsewhere), tombstones belong to the
-- owner of what was erased, and the store records which fingerprint key
-- its tombstones were made with (docs/durability.md).
--
-- The memories table is rebuilt with UNIQUE (tenant, id, revision), and
-- postings and derived_from with it (their foreign keys must name the new
-- table). Renaming a table rewrites the references to it, so the old
-- tables are renamed, the new ones created and filled, and the old ones
-- dropped children first: no foreign key action fires, in one transaction,
-- with foreign keys on. Triggers and indexes are recreated on the new
-- table.
--
-- Tombstones written before this migration were unkeyed 64-bit FNV-1a
-- hashes, tenant-wide: anyone holding the file could test guesses against
-- them. They are dropped (secure_delete zeroes their pages). Content erased
-- before the upgrade is gone from the store, but no longer blocks its
-- re-derivation: forget it again to block that. No semicolons in comments:
-- the Python store splits this file on them.
ALTER TABLE memories RENAME TO memories_v5;
ALTER TABLE postings RENAME TO postings_v5;
ALTER TABLE derived_from RENAME TO derived_from_v5;
DROP TRIGGER scope_documents_insert;
DROP TRIGGER scope_documents_delete;
DROP TRIGGER scope_documents_update_old;
DROP TRIGGER scope_documents_update_new;
DROP INDEX memories_one_active_per_key;
DROP INDEX memories_scope;
DROP INDEX memories_key;
DROP INDEX memories_source;
DROP INDEX memories_filter;
DROP INDEX memories_bounded;
DROP INDEX postings_rid;
DROP INDEX derived_from_rid;
CREATE TABLE memories (
    rid          INTEGER PRIMARY KEY,
    id           TEXT    NOT NULL,
    revision     INTEGER NOT NULL,
    tenant       TEXT    NOT NULL,
    user         TEXT,
    project      TEXT,
    thread       TEXT,
    agent        TEXT,
    kind         TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    sensitivity  INTEGER NOT NULL,
    valid_from   INTEGER,
    valid_to     INTEGER,
    subject      TEXT,
    predicate    TEXT,
    condition    TEXT,
    source_ref   TEXT,
    updated_at   INTEGER NOT NULL,
    etag         INTEGER NOT NULL,
    length       INTEGER NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_access  INTEGER,
    body         TEXT    NOT NULL,
    UNIQUE (tenant, id, revision)
);
CREATE TABLE postings (
    term        TEXT    NOT NULL,
    tenant      TEXT    NOT NULL,
    rid         INTEGER NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    user        TEXT,
    project     TEXT,
    thread      TEXT,
    agent       TEXT,
    kind        TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    sensitivity INTEGER NOT NULL,
    valid_from  INTEGER,
    valid_to    INTEGER,
    tf          INTEGER,
    PRIMARY KEY (term, tenant, rid)
) WITHOUT ROWID;
CREATE TABLE derived_from (
    event TEXT    NOT NULL,
    rid   INTEGER NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    PRIMARY KEY (event, rid)
) WITHOUT ROWID;
INSERT INTO memories (rid, id, revision, tenant, user, project, thread, agent, kind, status, sensitivity,
        valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length,
        access_count, last_access, body)
    SELECT rid, id, revision, tenant, user, project, thread, agent, kind, status, sensitivity,
        valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length,
        access_count, last_access, body
    FROM memories_v5;
INSERT INTO postings (term, tenant, rid, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf)
    SELECT term, tenant, rid, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf
    FROM postings_v5;
INSERT INTO derived_from (event, rid) SELECT event, rid FROM derived_from_v5;
DROP TABLE derived_from_v5;
DROP TABLE postings_v5;
DROP TABLE memories_v5;
CREATE UNIQUE INDEX memories_one_active_per_key ON memories (
    tenant, ifnull(user, ''), ifnull(project, ''), ifnull(thread, ''), ifnull(agent, ''),
    subject, predicate, ifnull(condition, '')
) WHERE status = 'active' AND kind = 'semantic';
CREATE INDEX memories_scope ON memories (tenant, user, project, status);
CREATE INDEX memories_key ON memories (tenant, subject, predicate);
CREATE INDEX memories_source ON memories (tenant, source_ref);
CREATE INDEX memories_filter ON memories (
    tenant, status, user, project, thread, agent, kind, sensitivity, valid_from, valid_to, length
);
CREATE INDEX memories_bounded ON memories (tenant, status)
    WHERE valid_from IS NOT NULL OR valid_to IS NOT NULL;
CREATE INDEX postings_rid ON postings (rid);
CREATE INDEX derived_from_rid ON derived_from (rid);
CREATE TRIGGER scope_documents_insert AFTER INSERT ON memories
WHEN NEW.valid_from IS NULL AND NEW.valid_to IS NULL
BEGIN
    INSERT INTO scope_documents VALUES (
        json_array(NEW.tenant, NEW.user, NEW.project, NEW.thread, NEW.agent, NEW.kind, NEW.status, NEW.sensitivity),
        NEW.tenant, NEW.user, NEW.project, NEW.thread, NEW.agent, NEW.kind, NEW.status, NEW.sensitivity, 1, NEW.length)
    ON CONFLICT (key) DO UPDATE SET documents = documents + 1, length = length + excluded.length;
END;
CREATE TRIGGER scope_documents_delete AFTER DELETE ON memories
WHEN OLD.valid_from IS NULL AND OLD.valid_to IS NULL
BEGIN
    UPDATE scope_documents SET documents = documents - 1, length = length - OLD.length
    WHERE key = json_array(OLD.tenant, OLD.user, OLD.project, OLD.thread, OLD.agent, OLD.kind, OLD.status, OLD.sensitivity);
END;
CREATE TRIGGER scope_documents_update_old
AFTER UPDATE OF tenant, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, length ON memories
WHEN OLD.valid_from IS NULL AND OLD.valid_to IS NULL
BEGIN
    UPDATE scope_documents SET documents = documents - 1, length = length - OLD.length
    WHERE key = json_array(OLD.tenant, OLD.user, OLD.project, OLD.thread, OLD.agent, OLD.kind, OLD.status, OLD.sensitivity);
END;
CREATE TRIGGER scope_documents_update_new
AFTER UPDATE OF tenant, user, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, length ON memories
WHEN NEW.valid_from IS NULL AND NEW.valid_to IS NULL
BEGIN
    INSERT INTO scope_documents VALUES (
        json_array(NEW.tenant, NEW.user, NEW.project, NEW.thread, NEW.agent, NEW.kind, NEW.status, NEW.sensitivity),
        NEW.tenant, NEW.user, NEW.project, NEW.thread, NEW.agent, NEW.kind, NEW.status, NEW.sensitivity, 1, NEW.length)
    ON CONFLICT (key) DO UPDATE SET documents = documents + 1, length = length + excluded.length;
END;
DROP TABLE tombstones;
-- One row per (owner, fingerprint, length). The owner is the tenant, user
-- and project of what was erased (a missing user and an empty one stay
-- apart).
CREATE TABLE tombstones (
    tenant      TEXT    NOT NULL,
    user        TEXT,
    project     TEXT,
    fingerprint TEXT    NOT NULL,
    length      INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    offset_min  INTEGER NOT NULL
);
CREATE UNIQUE INDEX tombstones_owner ON tombstones (
    tenant, ifnull(user, ''), user IS NULL, ifnull(project, ''), project IS NULL, fingerprint, length
);
-- The id of the fingerprint key the tombstones were made with (an HMAC of
-- a constant under the key: it reveals nothing of the key), so a host with
-- a lost or different key refuses rather than silently matching nothing.
CREATE TABLE fingerprint_key (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    key_id TEXT    NOT NULL
);
