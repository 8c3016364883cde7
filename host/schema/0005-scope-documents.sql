-- Migration 5: the document count and summed length of every group of
-- filter values (tenant, scope dimensions, kind, status, sensitivity),
-- kept by triggers on memories, so a process whose cache is cold reads a
-- scope's term statistics from a few rows instead of scanning the scope.
-- Only revisions without validity bounds are counted (their count does not
-- depend on the instant asked about). The few bounded ones are read through
-- the partial index below. Groups are keyed by a JSON array of their
-- values, so a missing dimension and an empty one stay apart. No
-- semicolons in comments: the Python store splits this file into
-- statements (keeping each trigger whole).
CREATE TABLE scope_documents (
    key         TEXT    PRIMARY KEY,
    tenant      TEXT    NOT NULL,
    user        TEXT,
    project     TEXT,
    thread      TEXT,
    agent       TEXT,
    kind        TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    sensitivity INTEGER NOT NULL,
    documents   INTEGER NOT NULL,
    length      INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO scope_documents
    SELECT json_array(tenant, user, project, thread, agent, kind, status, sensitivity),
           tenant, user, project, thread, agent, kind, status, sensitivity, count(*), sum(length)
    FROM memories WHERE valid_from IS NULL AND valid_to IS NULL
    GROUP BY tenant, user, project, thread, agent, kind, status, sensitivity;
CREATE INDEX memories_bounded ON memories (tenant, status)
    WHERE valid_from IS NOT NULL OR valid_to IS NOT NULL;
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
