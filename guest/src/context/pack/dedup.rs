//! Recalled memories against each other and the conversation: exact and
//! near duplicates merged (the conversation's copy wins), and memories that
//! disagree on one key kept next to each other and marked as a conflict.

use std::collections::BTreeSet;

use super::recall::key_of;
use super::recall::Key;
use super::recall::Recalled;
use super::reference::dropped;
use super::reference::mem_ref;
use super::text::norm;
use super::text::normalise;
use super::text::one_line;
use super::text::term_set;
use crate::context::compress::SummaryRules;
use crate::core::config::PackPart;
use crate::core::config::PackPolicy;
use crate::types::DropReason;
use crate::types::DroppedItem;
use crate::types::Memory;
use crate::types::MemoryKind;
use crate::types::PackRequest;
use crate::types::Payload;
use crate::types::SourceKind;
use crate::types::Status;

/// Memory texts at least this long (normalised) that already appear in the
/// conversation are duplicates.
const MIN_CONTAINED_CHARS: usize = 8;

/// A memory, knowledge snippet or artifact kept after deduplication.
pub(super) struct Kept {
    pub(super) part: PackPart,
    pub(super) reference: String,
    pub(super) text: String,
    pub(super) memory: Option<Memory>,
    pub(super) victim: u64,
    /// Other source kinds whose near-duplicates were merged into it.
    pub(super) also: Vec<SourceKind>,
    pub(super) norm: String,
    pub(super) terms: BTreeSet<String>,
    pub(super) figures: BTreeSet<String>,
}

impl Kept {
    fn new(
        part: PackPart,
        reference: String,
        text: String,
        memory: Option<Memory>,
        victim: u64,
    ) -> Kept {
        let mut figures = BTreeSet::new();
        for f in crate::context::compress::key_figures(
            &text,
            &SummaryRules {
                head_chars: 0,
                max_figures: usize::MAX,
                figure_chars: usize::MAX,
                figures_label: "",
                status_words: &[],
            },
        ) {
            figures.insert(f);
        }
        Kept {
            part,
            reference,
            norm: norm(&text),
            terms: term_set(&text),
            figures,
            text,
            memory,
            victim,
            also: Vec::new(),
        }
    }
}

/// Merge near-duplicates: a memory already said in the conversation, or
/// close to a higher-ranked memory, is dropped as `duplicate`; so are
/// knowledge snippets and artifacts close to anything kept before them.
pub(super) fn dedup(
    cfg: &PackPolicy,
    request: &PackRequest,
    recalled: Vec<Recalled>,
    drops: &mut Vec<DroppedItem>,
) -> Vec<Kept> {
    let conversation: Vec<String> = request.messages.iter().map(|m| norm(&m.text)).collect();
    let mut kept: Vec<Kept> = Vec::new();
    for r in recalled {
        let m = r.memory;
        let part = match m.kind {
            MemoryKind::Semantic => PackPart::Facts,
            MemoryKind::Episodic => PackPart::Events,
            MemoryKind::Procedural => PackPart::Procedures,
        };
        // Lower-ranked memories give way first.
        let victim = u64::from(u32::MAX).saturating_sub(r.rank as u64);
        let cand = Kept::new(part, mem_ref(&m), m.text.clone(), Some(m), victim);
        if cand.norm.chars().count() >= MIN_CONTAINED_CHARS
            && conversation.iter().any(|c| c.contains(&cand.norm))
        {
            drops.push(dropped(cand.reference, DropReason::Duplicate));
            continue;
        }
        if let Some(k) = kept.iter_mut().find(|k| near_duplicate(cfg, k, &cand)) {
            if let (Some(a), Some(b)) = (&k.memory, &cand.memory) {
                let src = b.provenance.source.kind;
                if a.provenance.source.kind != src && !k.also.contains(&src) {
                    k.also.push(src);
                }
            }
            drops.push(dropped(cand.reference, DropReason::Duplicate));
            continue;
        }
        kept.push(cand);
    }
    for (list, part, prefix) in [
        (&request.knowledge, PackPart::Knowledge, "knowledge"),
        (&request.artifacts, PackPart::Artifacts, "artifact"),
    ] {
        let n = list.len() as u64;
        for (i, s) in list.iter().enumerate() {
            let reference = Some(one_line(&s.reference))
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| format!("{prefix}:{i}"));
            let cand = Kept::new(part, reference, normalise(&s.text), None, n - i as u64);
            if kept.iter().any(|k| near_duplicate(cfg, k, &cand)) {
                drops.push(dropped(cand.reference, DropReason::Duplicate));
            } else {
                kept.push(cand);
            }
        }
    }
    kept
}

/// Do two items say the same thing? Conflicting memories and different
/// values of one key never are; otherwise the same letters and digits, or
/// index terms at least `duplicate_similarity` alike with the same figures.
fn near_duplicate(cfg: &PackPolicy, a: &Kept, b: &Kept) -> bool {
    if let (Some(x), Some(y)) = (&a.memory, &b.memory) {
        if x.status == Status::Conflicted || y.status == Status::Conflicted {
            return false;
        }
        if let (Some(kx), Some(ky)) = (key_of(x), key_of(y)) {
            if kx == ky {
                return match (&x.payload, &y.payload) {
                    (Payload::Semantic(p), Payload::Semantic(q)) => {
                        norm(&p.object) == norm(&q.object)
                    }
                    _ => false,
                };
            }
        }
    }
    if a.norm == b.norm {
        return true;
    }
    if a.terms.is_empty() || b.terms.is_empty() || a.figures != b.figures {
        return false;
    }
    let shared = a.terms.intersection(&b.terms).count();
    let union = a.terms.union(&b.terms).count();
    shared as f64 / union as f64 >= cfg.duplicate_similarity
}

/// Conflicting revisions of one key, placed together after the first.
pub(super) fn order_conflicts(kept: Vec<Kept>) -> Vec<Kept> {
    let group = |k: &Kept| {
        k.memory
            .as_ref()
            .filter(|m| m.status == Status::Conflicted)
            .and_then(key_of)
    };
    let conflicted: Vec<Key> = kept.iter().filter_map(group).collect();
    let key = |k: &Kept| {
        k.memory
            .as_ref()
            .and_then(key_of)
            .filter(|g| conflicted.contains(g))
    };
    let mut slots: Vec<Option<Kept>> = kept.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let Some(k) = slots[i].take() else {
            continue;
        };
        let g = key(&k);
        out.push(k);
        if let Some(g) = g {
            for slot in slots.iter_mut().skip(i + 1) {
                if slot.as_ref().and_then(key).as_ref() == Some(&g) {
                    if let Some(x) = slot.take() {
                        out.push(x);
                    }
                }
            }
        }
    }
    out
}

/// The other kept memories of a conflicted memory's key.
pub(super) fn conflict_partners(m: &Memory, kept: &[Kept]) -> Vec<String> {
    if m.status != Status::Conflicted {
        return Vec::new();
    }
    let key = key_of(m);
    kept.iter()
        .filter_map(|k| k.memory.as_ref())
        .filter(|o| key.is_some() && key_of(o) == key && mem_ref(o) != mem_ref(m))
        .map(mem_ref)
        .collect()
}
