//! What a database argument names: a PostgreSQL server (`postgres://…`,
//! `postgresql://…`) or a SQLite file (anything else; `:memory:` for a
//! database of this process only). Known with or without the `postgres`
//! feature, so a URL given to a build without it is refused by name.

/// Does `db` name a PostgreSQL server rather than a SQLite file?
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}
