-- PostgreSQL migration 1: the same data model as the SQLite schema
-- (host/schema/0001..0004), shaped for many tenants on one server. Every
-- table and every index leads with the tenant (the distribution key, see
-- docs/postgres.md). Identifiers and keys use the "C" collation so that
-- ordering matches SQLite's byte order. Integers are bigint throughout.
CREATE TABLE memories (
    rid          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           text COLLATE "C" NOT NULL,
    revision     bigint NOT NULL,
    tenant       text COLLATE "C" NOT NULL,
    user_id      text COLLATE "C",
    project      text COLLATE "C",
    thread       text COLLATE "C",
    agent        text COLLATE "C",
    kind         text NOT NULL,
    status       text NOT NULL,
    sensitivity  bigint NOT NULL,
    valid_from   bigint,
    valid_to     bigint,
    subject      text COLLATE "C",
    predicate    text COLLATE "C",
    condition    text COLLATE "C",
    source_ref   text COLLATE "C",
    updated_at   bigint NOT NULL,
    etag         bigint NOT NULL,
    length       bigint NOT NULL,
    access_count bigint NOT NULL DEFAULT 0,
    last_access  bigint,
    body         text NOT NULL,
    UNIQUE (id, revision)
);
-- The data model's rule, enforced by the database whatever the writer: at
-- most one active revision per (scope, subject, predicate, condition).
CREATE UNIQUE INDEX memories_one_active_per_key ON memories (
    tenant, coalesce(user_id, ''), coalesce(project, ''), coalesce(thread, ''),
    coalesce(agent, ''), subject, predicate, coalesce(condition, '')
) WHERE status = 'active' AND kind = 'semantic';
-- The hard filter, covering the columns `stats` counts.
CREATE INDEX memories_filter ON memories (
    tenant, status, user_id, project, thread, agent, kind, sensitivity, valid_from, valid_to, length
);
CREATE INDEX memories_key ON memories (tenant, subject, predicate);
CREATE INDEX memories_source ON memories (tenant, source_ref);
CREATE INDEX memories_recent ON memories (tenant, updated_at DESC);
-- Postings carry the hard-filter columns of their memory, so term
-- statistics and candidate search read only the asked terms' postings and
-- filter them without visiting the memory rows.
CREATE TABLE postings (
    tenant      text COLLATE "C" NOT NULL,
    term        text COLLATE "C" NOT NULL,
    rid         bigint NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    user_id     text COLLATE "C",
    project     text COLLATE "C",
    thread      text COLLATE "C",
    agent       text COLLATE "C",
    kind        text NOT NULL,
    status      text NOT NULL,
    sensitivity bigint NOT NULL,
    valid_from  bigint,
    valid_to    bigint,
    tf          bigint,
    PRIMARY KEY (tenant, term, rid)
);
CREATE INDEX postings_rid ON postings (rid);
CREATE TABLE derived_from (
    event text COLLATE "C" NOT NULL,
    rid   bigint NOT NULL REFERENCES memories (rid) ON DELETE CASCADE,
    PRIMARY KEY (event, rid)
);
CREATE INDEX derived_from_rid ON derived_from (rid);
CREATE TABLE events (
    tenant  text COLLATE "C" NOT NULL,
    session text COLLATE "C" NOT NULL,
    seq     bigint NOT NULL,
    user_id text COLLATE "C",
    project text COLLATE "C",
    thread  text COLLATE "C",
    agent   text COLLATE "C",
    kind    text COLLATE "C" NOT NULL,
    at      bigint NOT NULL,
    payload text NOT NULL,
    PRIMARY KEY (tenant, session, seq)
);
CREATE INDEX events_kind_at ON events (tenant, kind, at);
CREATE TABLE tombstones (
    tenant      text COLLATE "C" NOT NULL,
    fingerprint text COLLATE "C" NOT NULL,
    length      bigint NOT NULL,
    kind        text NOT NULL,
    created_at  bigint NOT NULL,
    offset_min  bigint NOT NULL,
    PRIMARY KEY (tenant, fingerprint, length)
);
-- Written in the same transaction as an erasure, cleared once the touched
-- tables were vacuumed: a store that opens and finds it finishes the job.
CREATE TABLE erasure_pending (
    id bigint PRIMARY KEY CHECK (id = 1)
);
