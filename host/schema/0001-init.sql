-- Migration 1: the initial schema.
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
    UNIQUE (id, revision)
);
-- The data model's rule, enforced by the store: at most one active
-- revision per (scope, subject, predicate, condition).
CREATE UNIQUE INDEX memories_one_active_per_key ON memories (
    tenant, ifnull(user, ''), ifnull(project, ''), ifnull(thread, ''), ifnull(agent, ''),
    subject, predicate, ifnull(condition, '')
) WHERE status = 'active' AND kind = 'semantic';
CREATE INDEX memories_scope ON memories (tenant, user, project, status);
CREATE INDEX memories_key ON memories (tenant, subject, predicate);
CREATE INDEX memories_source ON memories (tenant, source_ref);
-- Postings carry the hard-filter columns of their memory, so term
-- statistics and candidate search filter inside the index without
-- joining every posting to its memory.
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
    PRIMARY KEY (term, tenant, rid)
) WITHOUT ROWID;
CREATE INDEX postings_rid ON postings (rid);
CREATE TABLE derived_from (
    event TEXT    NOT NULL,
    rid   INTEGER NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    PRIMARY KEY (event, rid)
) WITHOUT ROWID;
CREATE INDEX derived_from_rid ON derived_from (rid);
CREATE TABLE events (
    tenant  TEXT    NOT NULL,
    session TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    user    TEXT,
    project TEXT,
    thread  TEXT,
    agent   TEXT,
    kind    TEXT    NOT NULL,
    at      INTEGER NOT NULL,
    payload TEXT    NOT NULL,
    PRIMARY KEY (tenant, session, seq)
);
CREATE INDEX events_kind_at ON events (tenant, kind, at);
CREATE TABLE tombstones (
    tenant      TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    length      INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    offset_min  INTEGER NOT NULL,
    PRIMARY KEY (tenant, fingerprint, length)
);
