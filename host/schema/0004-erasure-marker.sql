-- Migration 4: a marker written in the same transaction as an erasure and
-- cleared once a checkpoint has truncated the write-ahead log. If it is
-- present when a store opens, a crash came between the two, and the store
-- checkpoints before anything else (the old page images of erased rows are
-- still in the WAL until then). No semicolons in comments: the Python
-- store splits this file on them.
CREATE TABLE erasure_pending (
    id INTEGER PRIMARY KEY CHECK (id = 1)
);
