//! Building PostgreSQL statements with numbered parameters, and the hard
//! filter of `wit/store.wit` as a WHERE clause.

use postgres::types::ToSql;

use crate::bindings::{Filter, Principal, Scope, ScopeMatch};

type Arg = Box<dyn ToSql + Sync + Send>;

/// Parameters of one statement; `arg` returns the placeholder for a value.
#[derive(Default)]
pub(crate) struct Args(Vec<Arg>);

impl Args {
    pub fn arg(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0
            .iter()
            .map(|b| b.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// `col IS NULL` or `col = $n`: SQLite's `IS ?`, in a form that uses indexes.
fn equals(args: &mut Args, col: &str, value: &Option<String>) -> String {
    match value {
        None => format!("{col} IS NULL"),
        Some(v) => format!("{col} = {}", args.arg(v.clone())),
    }
}

/// The scope dimensions of `scope` under `how`, over table alias `a`.
fn scope_clause(args: &mut Args, a: &str, scope: &Scope, how: ScopeMatch) -> Vec<String> {
    let mut sql = vec![format!("{a}.tenant = {}", args.arg(scope.tenant.clone()))];
    for (col, val) in [
        ("user_id", &scope.user),
        ("project", &scope.project),
        ("thread", &scope.thread),
        ("agent", &scope.agent),
    ] {
        let col = format!("{a}.{col}");
        match (how, val) {
            (ScopeMatch::Exact, v) => sql.push(equals(args, &col, v)),
            (ScopeMatch::Visible, Some(v)) => sql.push(format!(
                "({col} IS NULL OR {col} = {})",
                args.arg(v.clone())
            )),
            (ScopeMatch::Visible, None) => sql.push(format!("{col} IS NULL")),
            (ScopeMatch::Within, Some(v)) => sql.push(format!("{col} = {}", args.arg(v.clone()))),
            (ScopeMatch::Within, None) => {}
        }
    }
    sql
}

/// Does the filter need columns only `memories` has (key, source)?
pub(crate) fn needs_memory_columns(f: &Filter) -> bool {
    f.subject.is_some() || f.predicate.is_some() || f.condition.is_some() || f.source_ref.is_some()
}

/// The filter over alias `a` (`m` = memories, `p` = postings, which carry
/// every column except the key and source ones; those are read from `m`,
/// which must then be joined).
pub(crate) fn filter_clause(args: &mut Args, a: &str, f: &Filter) -> String {
    let mut sql = scope_clause(args, a, &f.scope, f.scope_match);
    if !f.kinds.is_empty() {
        let kinds: Vec<String> = f.kinds.iter().map(|k| k.name().to_string()).collect();
        sql.push(format!("{a}.kind = ANY({})", args.arg(kinds)));
    }
    if !f.statuses.is_empty() {
        let statuses: Vec<String> = f.statuses.iter().map(|s| s.name().to_string()).collect();
        sql.push(format!("{a}.status = ANY({})", args.arg(statuses)));
    }
    if f.exclude_archived {
        sql.push(format!("{a}.status <> 'archived'"));
    }
    if let Some(at) = f.valid_at {
        let at = args.arg(at.epoch_ms);
        sql.push(format!(
            "({a}.valid_from IS NULL OR {a}.valid_from <= {at}) AND ({a}.valid_to IS NULL OR {a}.valid_to > {at})"
        ));
    }
    if let Some(s) = f.sensitivity_max {
        sql.push(format!(
            "{a}.sensitivity <= {}",
            args.arg(i64::from(s.rank()))
        ));
    }
    if let Some(s) = &f.subject {
        sql.push(format!("m.subject = {}", args.arg(s.clone())));
    }
    if let Some(p) = &f.predicate {
        sql.push(format!("m.predicate = {}", args.arg(p.clone())));
    }
    match &f.condition {
        None => {}
        Some(None) => sql.push("m.kind = 'semantic' AND m.condition IS NULL".into()),
        Some(Some(c)) => sql.push(format!("m.condition = {}", args.arg(c.clone()))),
    }
    if let Some(r) = &f.source_ref {
        let r = args.arg(r.clone());
        sql.push(format!(
            "(m.source_ref = {r} OR m.rid IN (SELECT d.rid FROM derived_from d WHERE d.event = {r}))"
        ));
    }
    sql.join(" AND ")
}

/// The rows a principal may touch, over `memories m`.
pub(crate) fn principal_clause(args: &mut Args, p: &Principal) -> String {
    let mut sql = format!("m.tenant = {}", args.arg(p.tenant.clone()));
    if let Some(u) = &p.user {
        sql.push_str(&format!(" AND m.user_id = {}", args.arg(u.clone())));
    }
    if let Some(pr) = &p.project {
        sql.push_str(&format!(" AND m.project = {}", args.arg(pr.clone())));
    }
    sql
}

/// Rows within `scope` (every dimension it sets equal), over alias `a`.
pub(crate) fn within_scope(args: &mut Args, a: &str, scope: &Scope) -> String {
    scope_clause(args, a, scope, ScopeMatch::Within).join(" AND ")
}

/// Events of exactly `scope` (every dimension equal, `none` = `none`).
pub(crate) fn exact_scope(args: &mut Args, a: &str, scope: &Scope) -> String {
    scope_clause(args, a, scope, ScopeMatch::Exact).join(" AND ")
}
