-- Migration 2: a covering index for the hard filter, so `stats` counts the
-- documents of a scope (and `find` filters) from the index alone instead of
-- visiting every row of the scope (`engram bench`, 100k memories: about 4x
-- faster).
CREATE INDEX memories_filter ON memories (
    tenant, status, user, project, thread, agent, kind, sensitivity, valid_from, valid_to, length
);
