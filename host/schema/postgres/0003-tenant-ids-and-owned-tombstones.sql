-- PostgreSQL migration 3: the SQLite store's migration 6. Memory ids are
-- unique per tenant (one tenant can no longer squat another's id, and a
-- conflict never confirms that an id exists elsewhere), tombstones belong
-- to the owner of what was erased, and the store records which
-- fingerprint key its tombstones were made with (docs/durability.md).
-- Tombstones written before were unkeyed 64-bit FNV-1a hashes that anyone
-- holding the database could test guesses against: they are dropped
-- (forget again what must stay blocked from re-derivation).
ALTER TABLE memories DROP CONSTRAINT memories_id_revision_key;
ALTER TABLE memories ADD CONSTRAINT memories_tenant_id_revision_key UNIQUE (tenant, id, revision);
DROP TABLE tombstones;
CREATE TABLE tombstones (
    tenant      text COLLATE "C" NOT NULL,
    user_id     text COLLATE "C",
    project     text COLLATE "C",
    fingerprint text COLLATE "C" NOT NULL,
    length      bigint NOT NULL,
    kind        text NOT NULL,
    created_at  bigint NOT NULL,
    offset_min  bigint NOT NULL
);
-- One row per (owner, fingerprint, length); a missing user and an empty
-- one stay apart.
CREATE UNIQUE INDEX tombstones_owner ON tombstones (
    tenant, coalesce(user_id, ''), (user_id IS NULL), coalesce(project, ''), (project IS NULL),
    fingerprint, length
);
CREATE TABLE fingerprint_key (
    id     bigint PRIMARY KEY CHECK (id = 1),
    key_id text NOT NULL
);
