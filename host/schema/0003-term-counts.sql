-- Migration 3: how often each term occurs in its record's index terms,
-- returned by `search` so the ranker need not analyse candidates again (NULL
-- for records written before: the guest then analyses them). Lengths are
-- counted with repeats from here on, as the ranker counts them.
ALTER TABLE postings ADD COLUMN tf INTEGER;
