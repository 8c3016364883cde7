-- PostgreSQL migration 2: a change counter per tenant, bumped by every
-- commit that writes the tenant (under its lock). Readers keep term
-- statistics and postings while the counter is unchanged.
CREATE TABLE tenant_versions (
    tenant  text COLLATE "C" PRIMARY KEY,
    version bigint NOT NULL
);
