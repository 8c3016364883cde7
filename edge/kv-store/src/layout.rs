//! Where everything lives in the bucket: one key family per tenant, named
//! `engram/{tenant}/…` (the tenant percent-escaped). Names that would
//! carry content (index terms, semantic keys, scopes) are FNV-1a hashes;
//! the values hold the full strings, so a hash collision only shares a key.
//!
//! | key | value |
//! | --- | --- |
//! | `head` | `{v, pending}`: the tenant's commit version, changed only by compare-and-swap |
//! | `commit/{v}-{nonce}` | a commit's whole write set while it is being applied |
//! | `rows/{s}` | shard `s` (of 16, by id) of the row catalog: every revision's filter columns |
//! | `mem/{id}/{revision}` | one revision: the memory, its etag, its index terms |
//! | `post/{hash(term)}` | a term's postings: (row, id, revision, count, class) |
//! | `docs` | document classes (the filter columns postings share) with counts and lengths |
//! | `key/{hash(key)}` | the active revision of a semantic key (one-active rule) |
//! | `tombstones` | erased-content fingerprints |
//! | `events/meta`, `events/{n}` | the event log in chunks of 64, per-session sequences |
//! | `events/session/{hash(session)}` | the numbers of each session's events in the log (`session-log`) |
//! | `events/count/{hash}`, `…/{minute}` | per (scope, kind) event counts by minute, and the minute's instants |
//! | `gc` | markers of deleted keys, deleted for good ten minutes on |

/// Rows shards per tenant.
pub const ROW_SHARDS: u64 = 16;
/// Events per log chunk.
pub const EVENT_CHUNK: u64 = 64;

/// 64-bit FNV-1a (the policy's id hash; stable everywhere).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `/` and `%` escaped so a name never crosses into another key family.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '/' => out.push_str("%2F"),
            '%' => out.push_str("%25"),
            c if c.is_control() => out.push_str(&format!("%{:02X}", c as u32 & 0xff)),
            c => out.push(c),
        }
    }
    out
}

/// The key names of one tenant.
#[derive(Debug, Clone)]
pub struct Layout {
    prefix: String,
}

impl Layout {
    pub fn new(tenant: &str) -> Self {
        Layout {
            prefix: format!("engram/{}/", escape(tenant)),
        }
    }

    /// Every key of this tenant starts with this.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn head(&self) -> String {
        format!("{}head", self.prefix)
    }
    pub fn commit(&self, v: u64, nonce: u64) -> String {
        format!("{}commit/{v}-{nonce:016x}", self.prefix)
    }
    pub fn row_shard_of(id: &str) -> u64 {
        fnv1a(id.as_bytes()) % ROW_SHARDS
    }
    pub fn rows(&self, shard: u64) -> String {
        format!("{}rows/{shard:02x}", self.prefix)
    }
    pub fn all_rows(&self) -> Vec<String> {
        (0..ROW_SHARDS).map(|s| self.rows(s)).collect()
    }
    pub fn memory(&self, id: &str, revision: u32) -> String {
        format!("{}mem/{}/{revision}", self.prefix, escape(id))
    }
    pub fn postings(&self, term: &str) -> String {
        format!("{}post/{:016x}", self.prefix, fnv1a(term.as_bytes()))
    }
    pub fn docs(&self) -> String {
        format!("{}docs", self.prefix)
    }
    pub fn key_index(&self, canonical: &str) -> String {
        format!("{}key/{:016x}", self.prefix, fnv1a(canonical.as_bytes()))
    }
    /// The id of the fingerprint secret the bucket's tombstones are made
    /// with (one for the bucket, as SQLite's `fingerprint_key` table).
    pub fn fingerprint_key_id() -> &'static str {
        "engram/fingerprint-key-id"
    }
    pub fn tombstones(&self) -> String {
        format!("{}tombstones", self.prefix)
    }
    pub fn events_meta(&self) -> String {
        format!("{}events/meta", self.prefix)
    }
    pub fn events_chunk(&self, n: u64) -> String {
        format!("{}events/{n}", self.prefix)
    }
    pub fn session_index(&self, session: &str) -> String {
        format!(
            "{}events/session/{:016x}",
            self.prefix,
            fnv1a(session.as_bytes())
        )
    }
    pub fn event_counts(&self, canonical: &str) -> String {
        format!(
            "{}events/count/{:016x}",
            self.prefix,
            fnv1a(canonical.as_bytes())
        )
    }
    pub fn event_minute(&self, canonical: &str, minute: i64) -> String {
        format!("{}/{minute}", self.event_counts(canonical))
    }
    pub fn gc(&self) -> String {
        format!("{}gc", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenants_cannot_reach_each_others_keys() {
        let a = Layout::new("acme/head");
        let b = Layout::new("acme");
        assert_eq!(a.head(), "engram/acme%2Fhead/head");
        assert!(!a.head().starts_with(b.prefix()));
        assert_eq!(Layout::new("50%").prefix(), "engram/50%25/");
        assert!(Layout::row_shard_of("m-1") < ROW_SHARDS);
    }

    #[test]
    fn content_never_appears_in_a_key_name() {
        let l = Layout::new("t");
        let k = l.postings("hunter2");
        assert!(!k.contains("hunter2"), "{k}");
        assert!(!l.key_index("user:u1|password").contains("password"));
        assert!(!l.session_index("op:refund-hunter2").contains("hunter2"));
    }
}
