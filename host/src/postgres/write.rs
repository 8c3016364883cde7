//! Inserting many revisions in a few statements: a run of consecutive
//! inserts in one commit (an `import` chunk, a `remember` call) becomes one
//! multi-row insert of the memories, one of their postings and one of their
//! sources, instead of three round trips per record.

use std::collections::{BTreeMap, HashMap};

use postgres::Client;

use super::columns::{db_err, key_columns, kind_name, status_name};
use crate::bindings::{Insert, StoreError};

/// The columns of the rows to insert, one vector per column.
#[derive(Default)]
struct Columns {
    id: Vec<String>,
    revision: Vec<i64>,
    tenant: Vec<String>,
    user: Vec<Option<String>>,
    project: Vec<Option<String>>,
    thread: Vec<Option<String>>,
    agent: Vec<Option<String>>,
    kind: Vec<String>,
    status: Vec<String>,
    sensitivity: Vec<i64>,
    valid_from: Vec<Option<i64>>,
    valid_to: Vec<Option<i64>>,
    subject: Vec<Option<String>>,
    predicate: Vec<Option<String>>,
    condition: Vec<Option<String>>,
    source_ref: Vec<Option<String>>,
    updated_at: Vec<i64>,
    length: Vec<i64>,
    access_count: Vec<i64>,
    body: Vec<String>,
}

/// Insert `inserts` (new revisions, etag 1) with their postings and sources.
/// An (id, revision) that exists, or a second active revision of a key,
/// fails the statement: a `conflict`, and the caller's commit rolls back.
pub(super) fn insert_many(c: &mut Client, inserts: &[&Insert]) -> Result<(), StoreError> {
    let mut col = Columns::default();
    for ins in inserts {
        let m = &ins.memory;
        let (subject, predicate, condition) = key_columns(m);
        col.id.push(m.id.clone());
        col.revision.push(m.revision as i64);
        col.tenant.push(m.scope.tenant.clone());
        col.user.push(m.scope.user.clone());
        col.project.push(m.scope.project.clone());
        col.thread.push(m.scope.thread.clone());
        col.agent.push(m.scope.agent.clone());
        col.kind.push(kind_name(m));
        col.status.push(status_name(m));
        col.sensitivity.push(i64::from(m.sensitivity.rank()));
        col.valid_from.push(m.valid_from.map(|d| d.epoch_ms));
        col.valid_to.push(m.valid_to.map(|d| d.epoch_ms));
        col.subject.push(subject);
        col.predicate.push(predicate);
        col.condition.push(condition);
        col.source_ref.push(m.provenance.source.reference.clone());
        col.updated_at.push(m.updated_at.epoch_ms);
        col.length.push(ins.index_terms.len() as i64);
        col.access_count.push(m.access_count as i64);
        col.body.push(engram_contract::body::encode(m));
    }
    let what = match inserts {
        [one] => format!("{} revision {}", one.memory.id, one.memory.revision),
        many => format!("{} new revisions", many.len()),
    };
    let rows = c
        .query(
            "INSERT INTO memories (id, revision, tenant, user_id, project, thread, agent, kind, status, sensitivity,
                valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, etag, length, access_count, body)
             SELECT u.id, u.revision, u.tenant, u.user_id, u.project, u.thread, u.agent, u.kind, u.status, u.sensitivity,
                u.valid_from, u.valid_to, u.subject, u.predicate, u.condition, u.source_ref, u.updated_at, 1, u.length,
                u.access_count, u.body
             FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                         $9::text[], $10::int8[], $11::int8[], $12::int8[], $13::text[], $14::text[], $15::text[],
                         $16::text[], $17::int8[], $18::int8[], $19::int8[], $20::text[])
                  WITH ORDINALITY AS u(id, revision, tenant, user_id, project, thread, agent, kind, status, sensitivity,
                         valid_from, valid_to, subject, predicate, condition, source_ref, updated_at, length,
                         access_count, body, n)
             ORDER BY u.n
             RETURNING rid, id, revision",
            &[
                &col.id, &col.revision, &col.tenant, &col.user, &col.project, &col.thread, &col.agent,
                &col.kind, &col.status, &col.sensitivity, &col.valid_from, &col.valid_to, &col.subject,
                &col.predicate, &col.condition, &col.source_ref, &col.updated_at, &col.length,
                &col.access_count, &col.body,
            ],
        )
        .map_err(|e| db_err(e, &what))?;
    let rids: HashMap<(String, i64), i64> = rows
        .iter()
        .map(|r| ((r.get(1), r.get(2)), r.get(0)))
        .collect();
    let mut p = Postings::default();
    let (mut events, mut event_rids) = (Vec::new(), Vec::new());
    for (i, ins) in inserts.iter().enumerate() {
        let Some(&rid) = rids.get(&(col.id[i].clone(), col.revision[i])) else {
            return Err(StoreError::Backend(format!(
                "{} revision {} was not inserted",
                col.id[i], col.revision[i]
            )));
        };
        p.add(&col, i, rid, &ins.index_terms);
        for ev in &ins.memory.provenance.source_event_ids {
            events.push(ev.clone());
            event_rids.push(rid);
        }
    }
    p.write(c)?;
    if !events.is_empty() {
        c.execute(
            "INSERT INTO derived_from (event, rid) SELECT * FROM unnest($1::text[], $2::int8[]) ON CONFLICT DO NOTHING",
            &[&events, &event_rids],
        )
        .map_err(|e| db_err(e, "writing sources"))?;
    }
    Ok(())
}

/// Posting rows: one per distinct term of each record, with its count.
#[derive(Default)]
struct Postings {
    tenant: Vec<String>,
    term: Vec<String>,
    rid: Vec<i64>,
    user: Vec<Option<String>>,
    project: Vec<Option<String>>,
    thread: Vec<Option<String>>,
    agent: Vec<Option<String>>,
    kind: Vec<String>,
    status: Vec<String>,
    sensitivity: Vec<i64>,
    valid_from: Vec<Option<i64>>,
    valid_to: Vec<Option<i64>>,
    tf: Vec<i64>,
}

impl Postings {
    fn add(&mut self, col: &Columns, i: usize, rid: i64, terms: &[String]) {
        let mut uniq: BTreeMap<&str, i64> = BTreeMap::new();
        for t in terms {
            *uniq.entry(t.as_str()).or_default() += 1;
        }
        for (term, tf) in uniq {
            self.tenant.push(col.tenant[i].clone());
            self.term.push(term.to_string());
            self.rid.push(rid);
            self.user.push(col.user[i].clone());
            self.project.push(col.project[i].clone());
            self.thread.push(col.thread[i].clone());
            self.agent.push(col.agent[i].clone());
            self.kind.push(col.kind[i].clone());
            self.status.push(col.status[i].clone());
            self.sensitivity.push(col.sensitivity[i]);
            self.valid_from.push(col.valid_from[i]);
            self.valid_to.push(col.valid_to[i]);
            self.tf.push(tf);
        }
    }

    fn write(&self, c: &mut Client) -> Result<(), StoreError> {
        if self.rid.is_empty() {
            return Ok(());
        }
        c.execute(
            "INSERT INTO postings (tenant, term, rid, user_id, project, thread, agent, kind, status, sensitivity, valid_from, valid_to, tf)
             SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[],
                                  $8::text[], $9::text[], $10::int8[], $11::int8[], $12::int8[], $13::int8[])
             ON CONFLICT DO NOTHING",
            &[
                &self.tenant, &self.term, &self.rid, &self.user, &self.project, &self.thread, &self.agent,
                &self.kind, &self.status, &self.sensitivity, &self.valid_from, &self.valid_to, &self.tf,
            ],
        )
        .map_err(|e| db_err(e, "writing postings"))?;
        Ok(())
    }
}
