//! Tombstones: keyed fingerprints of erased content, never the content.
//!
//! A fingerprint is the hex HMAC-SHA-256 of the normalised text (lowercased,
//! trimmed) under the fingerprint key of the tombstone's owner — the
//! tenant, user and project the erased content belonged to. The host
//! derives one key per owner from a secret that is not in the store
//! (`store.fingerprint-key`), so the database alone gives nothing to test
//! guesses against, and a principal only ever holds the keys of owners it
//! can see. A text fragment is found in a later text by fingerprinting
//! every window of the fragment's length (in characters).
//!
//! A tombstone of length 0 fingerprints a reference, not text: `source` (an
//! erased event or session: nothing derived from it may come back) or
//! `origin` (where erased content came from: a candidate from there is
//! re-derivation, never a re-statement).
//!
//! Tombstones stop re-derivation, not the user: a new explicit statement
//! by the user who owned the erased content is admitted, with a reason
//! saying so ([`Erased::check`], docs/SPEC.md §3.4).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::core::config::WritePolicy;
use crate::core::store::Store;
use crate::types::{Candidate, Datetime, Error, Reason, Scope, SourceKind};
use crate::wit_store::Tombstone;
use engram_contract::reason::ReasonCode;

/// Lowercased and trimmed: the form every text fingerprint is taken over.
pub fn normalise(text: &str) -> String {
    text.trim().to_lowercase()
}

pub use engram_contract::owner::owner_of;

/// An owner as a map key.
type OwnerKey = (String, Option<String>, Option<String>);

fn owner_key(s: &Scope) -> OwnerKey {
    (s.tenant.clone(), s.user.clone(), s.project.clone())
}

/// One owner's fingerprint key, ready to fingerprint many windows (the
/// keyed state is computed once and cloned per message).
#[derive(Clone)]
pub struct FingerprintKey(Hmac<Sha256>);

impl FingerprintKey {
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        if key.len() < 16 {
            return Err(Error::Store(format!(
                "the host handed out a fingerprint key of {} bytes; at least 16 are needed",
                key.len()
            )));
        }
        Hmac::<Sha256>::new_from_slice(key)
            .map(FingerprintKey)
            .map_err(|_| Error::Store("the host handed out an unusable fingerprint key".into()))
    }

    fn digest(&self, bytes: &[u8]) -> [u8; 32] {
        let mut mac = self.0.clone();
        mac.update(bytes);
        mac.finalize().into_bytes().into()
    }

    /// The fingerprint of a text (of its normalised form).
    pub fn of_text(&self, text: &str) -> String {
        hex(&self.digest(normalise(text).as_bytes()))
    }

    /// The fingerprint of a reference as a `source` or `origin` tombstone.
    pub fn of_reference(&self, kind: &str, reference: &str) -> String {
        hex(&self.digest(format!("{kind}\u{0}{}", reference.trim()).as_bytes()))
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// A tombstone for erased text owned by `owner`; `None` when nothing is
/// left after normalisation.
pub fn for_text(
    key: &FingerprintKey,
    owner: &Scope,
    text: &str,
    kind: &str,
    at: Datetime,
) -> Option<Tombstone> {
    let n = normalise(text);
    let length = n.chars().count();
    (length > 0).then(|| Tombstone {
        scope: owner_of(owner),
        fingerprint: hex(&key.digest(n.as_bytes())),
        length: length.min(u32::MAX as usize) as u32,
        kind: kind.to_string(),
        created_at: at,
    })
}

/// A `source` or `origin` tombstone for a reference (length 0: never
/// matched against text).
pub fn for_reference(
    key: &FingerprintKey,
    owner: &Scope,
    kind: &str,
    reference: &str,
    at: Datetime,
) -> Tombstone {
    Tombstone {
        scope: owner_of(owner),
        fingerprint: key.of_reference(kind, reference),
        length: 0,
        kind: kind.to_string(),
        created_at: at,
    }
}

/// What the tombstones say about a candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// No tombstone applies.
    Clear,
    /// Erased content would come back: why (a `gate.sensitivity.erased-…`
    /// reason).
    Blocked(Reason),
    /// Erased content, stated again by its owner in a new statement:
    /// admitted; what kind of content was erased.
    Restated(String),
}

impl Verdict {
    pub fn blocked(&self) -> Option<&Reason> {
        match self {
            Verdict::Blocked(why) => Some(why),
            _ => None,
        }
    }
}

/// May a candidate that carries erased content be a re-statement at all?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restatement {
    /// `remember`/`classify`: a new statement may be.
    Possible,
    /// `import`: records from another system are re-derivation by nature.
    Never,
}

/// The tombstones and fingerprint keys one policy call has read, fetched
/// once per scope: the view of erased content the write pipeline and
/// `forget` consult.
pub struct Erased<'a> {
    store: &'a dyn Store,
    visible: RefCell<BTreeMap<OwnerKey, Rc<Vec<Tombstone>>>>,
    keys: RefCell<BTreeMap<OwnerKey, Rc<FingerprintKey>>>,
}

impl<'a> Erased<'a> {
    pub fn new(store: &'a dyn Store) -> Self {
        Erased {
            store,
            visible: RefCell::new(BTreeMap::new()),
            keys: RefCell::new(BTreeMap::new()),
        }
    }

    /// The fingerprint key of `owner`'s content.
    pub fn key(&self, owner: &Scope) -> Result<Rc<FingerprintKey>, Error> {
        let k = owner_key(owner);
        if let Some(key) = self.keys.borrow().get(&k) {
            return Ok(Rc::clone(key));
        }
        let bytes = self.store.fingerprint_key(&owner_of(owner))?;
        let key = Rc::new(FingerprintKey::new(&bytes)?);
        self.keys.borrow_mut().insert(k, Rc::clone(&key));
        Ok(key)
    }

    /// The tombstones that apply in `scope` (its owner and every wider one).
    pub fn visible(&self, scope: &Scope) -> Result<Rc<Vec<Tombstone>>, Error> {
        let k = owner_key(scope);
        if let Some(ts) = self.visible.borrow().get(&k) {
            return Ok(Rc::clone(ts));
        }
        let ts = Rc::new(self.store.tombstones(&owner_of(scope))?);
        self.visible.borrow_mut().insert(k, Rc::clone(&ts));
        Ok(ts)
    }

    /// The tombstones owned by exactly `owner`.
    pub fn owned(&self, owner: &Scope) -> Result<Vec<Tombstone>, Error> {
        let want = owner_of(owner);
        Ok(self
            .visible(owner)?
            .iter()
            .filter(|t| t.scope == want)
            .cloned()
            .collect())
    }

    /// Every content tombstone among `tombstones` whose fragment occurs in
    /// `text`.
    fn text_hits<'t>(
        &self,
        text: &str,
        tombstones: impl IntoIterator<Item = &'t Tombstone>,
    ) -> Result<Vec<&'t Tombstone>, Error> {
        let norm = normalise(text);
        // Byte offset of every char boundary, including the end.
        let bounds: Vec<usize> = norm
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(norm.len()))
            .collect();
        let chars = bounds.len() - 1;
        // (owner, length) → the fingerprints wanted.
        let mut groups: BTreeMap<(OwnerKey, usize), Vec<&'t Tombstone>> = BTreeMap::new();
        for t in tombstones {
            let l = t.length as usize;
            if l > 0 && l <= chars {
                groups.entry((owner_key(&t.scope), l)).or_default().push(t);
            }
        }
        let mut out = Vec::new();
        for ((_, l), ts) in groups {
            let key = self.key(&ts[0].scope)?;
            let wanted: BTreeSet<&str> = ts.iter().map(|t| t.fingerprint.as_str()).collect();
            for i in 0..=(chars - l) {
                let f = hex(&key.digest(&norm.as_bytes()[bounds[i]..bounds[i + l]]));
                if wanted.contains(f.as_str()) {
                    out.extend(ts.iter().copied().filter(|t| t.fingerprint == f));
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The first tombstone of `kinds` that fingerprints `reference`.
    fn reference_hit<'t>(
        &self,
        reference: &str,
        kinds: &[&str],
        tombstones: &'t [Tombstone],
    ) -> Result<Option<&'t Tombstone>, Error> {
        for t in tombstones {
            if t.length == 0 && kinds.contains(&t.kind.as_str()) {
                let key = self.key(&t.scope)?;
                if key.of_reference(&t.kind, reference) == t.fingerprint {
                    return Ok(Some(t));
                }
            }
        }
        Ok(None)
    }

    /// Does `text` carry erased content that applies in `scope`?
    pub fn text_matches(&self, scope: &Scope, text: &str) -> Result<bool, Error> {
        let ts = self.visible(scope)?;
        Ok(!self.text_hits(text, ts.iter())?.is_empty())
    }

    /// What the tombstones that apply in the candidate's scope say about
    /// it. A candidate from an erased source is blocked. One that carries
    /// erased content is blocked unless it is a re-statement: a new,
    /// explicit statement by the owner of that content — from the user
    /// (`source.kind` user), in exactly the owner's scope (the same user and
    /// project), not from where the erased content came from, observed after
    /// the erasure, and in the user's own words (not only inside quoted
    /// text: a pasted document is an untrusted carrier).
    pub fn check(
        &self,
        c: &Candidate,
        restatement: Restatement,
        wp: &WritePolicy,
    ) -> Result<Verdict, Error> {
        let ts = self.visible(&c.scope)?;
        if ts.is_empty() {
            return Ok(Verdict::Clear);
        }
        let reference = c
            .source
            .reference
            .as_deref()
            .filter(|r| !r.trim().is_empty());
        if let Some(r) = reference {
            if self.reference_hit(r, &["source"], &ts)?.is_some() {
                return Ok(Verdict::Blocked(Reason::new(
                    ReasonCode::GateSensitivityErasedSource,
                    &[],
                )));
            }
        }
        let mut hits = self.text_hits(&c.text, ts.iter())?;
        if let Some(o) = c.object.as_deref() {
            for t in self.text_hits(o, ts.iter())? {
                if !hits.iter().any(|h| std::ptr::eq(*h, t)) {
                    hits.push(t);
                }
            }
        }
        let Some(first) = hits.first() else {
            return Ok(Verdict::Clear);
        };
        let owner = owner_of(&c.scope);
        let from_origin = match reference {
            Some(r) => self.reference_hit(r, &["origin"], &ts)?.is_some(),
            None => false,
        };
        let observed_before = c
            .observed_at
            .is_some_and(|at| hits.iter().any(|t| at.epoch_ms <= t.created_at.epoch_ms));
        // In the speaker's own words: outside quoted text, or in the
        // explicit object.
        let own = !self
            .text_hits(&own_words(&c.text, wp), hits.iter().copied())?
            .is_empty()
            || match c.object.as_deref() {
                Some(o) => !self.text_hits(o, hits.iter().copied())?.is_empty(),
                None => false,
            };
        let why_not = if restatement == Restatement::Never {
            Some("imported records never bring erased content back".to_string())
        } else if c.source.kind != SourceKind::User {
            Some(format!(
                "a {} source re-derives it; only its owner's own new statement may say it again",
                crate::core::model::source_label(c.source.kind)
            ))
        } else if hits.iter().any(|t| t.scope != owner) {
            Some(
                "it was erased for a wider scope than this candidate's, which one user's statement does not reopen"
                    .to_string(),
            )
        } else if from_origin {
            Some("it comes from the source the erased content came from".to_string())
        } else if observed_before {
            Some("it was observed before the content was erased".to_string())
        } else if !own {
            Some("it appears only in quoted text, which carries another source's words".to_string())
        } else {
            None
        };
        Ok(match why_not {
            Some(w) => Verdict::Blocked(Reason::new(
                ReasonCode::GateSensitivityErasedContent,
                &[&first.kind, &w],
            )),
            None => Verdict::Restated(first.kind.clone()),
        })
    }
}

/// `text` with its quoted parts (a carrier label's text, quotation marks,
/// `>` lines) blanked out: the speaker's own words.
fn own_words(text: &str, wp: &WritePolicy) -> String {
    let folded = crate::analysis::cues::fold(text);
    let spans = crate::write::detect::injection::quoted_spans(&folded, wp);
    if spans.is_empty() {
        return text.to_string();
    }
    text.char_indices()
        .map(|(i, ch)| {
            if spans.iter().any(|&(a, b)| i >= a && i < b) {
                ' '
            } else {
                ch
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Datetime = Datetime {
        epoch_ms: 0,
        offset_minutes: 0,
    };

    fn key(seed: u8) -> FingerprintKey {
        FingerprintKey::new(&[seed; 32]).unwrap()
    }

    fn acme() -> Scope {
        Scope {
            tenant: "acme".into(),
            user: Some("u1".into()),
            project: None,
            thread: Some("t1".into()),
            agent: None,
        }
    }

    #[test]
    fn fingerprints_are_keyed_and_of_the_normalised_text() {
        let k = key(1);
        assert_eq!(k.of_text("  BlueFalcon77 "), k.of_text("bluefalcon77"));
        assert_ne!(k.of_text("bluefalcon77"), k.of_text("bluefalcon78"));
        assert_eq!(k.of_text("abc").len(), 64);
        // Another key, another fingerprint: the store alone cannot test guesses.
        assert_ne!(k.of_text("1234"), key(2).of_text("1234"));
        assert!(for_text(&k, &acme(), "   ", "text", T0).is_none());
        // RFC 4231 test case 2: HMAC-SHA-256 as every host computes it.
        let jefe = FingerprintKey(Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap());
        assert_eq!(
            hex(&jefe.digest(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_tombstone_is_owned_by_tenant_user_and_project_only() {
        let t = for_text(&key(1), &acme(), "BlueFalcon77", "text", T0).unwrap();
        assert_eq!(t.scope.user.as_deref(), Some("u1"));
        assert_eq!(
            (t.scope.thread.clone(), t.scope.agent.clone()),
            (None, None)
        );
        assert_eq!(t.length, 12);
    }

    #[test]
    fn references_are_fingerprinted_by_kind() {
        let k = key(1);
        assert_ne!(
            k.of_reference("source", "evt-9"),
            k.of_reference("origin", "evt-9")
        );
        assert_eq!(
            for_reference(&k, &acme(), "source", " evt-9 ", T0).fingerprint,
            k.of_reference("source", "evt-9")
        );
    }

    #[test]
    fn own_words_blank_quoted_text() {
        let wp = crate::core::config::Policy::default().write;
        let w = own_words("My codename is BLUEFOX", &wp);
        assert_eq!(w, "My codename is BLUEFOX");
        let q = own_words("Here is the ticket text: the codename is BLUEFOX", &wp);
        assert!(!q.contains("BLUEFOX"), "{q}");
    }
}
