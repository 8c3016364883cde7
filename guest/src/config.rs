//! The versioned policy configuration: thresholds, weights, trust tables and
//! cue lists are data here, not constants scattered through the code. Every
//! decision records `Policy::version`; change the version when you change a
//! value.

use crate::types::{MemoryKind, SourceKind};

/// Version of this configuration, recorded on every decision and memory.
pub const POLICY_VERSION: &str = "engram-policy/2026.11.30-1";
/// Version of the extraction code (classification + normalisation).
pub const EXTRACTOR_VERSION: &str = "engram-extractor/0.1.0";

/// Default trust of a source kind.
#[derive(Debug, Clone, Copy)]
pub struct SourceTrust {
    pub kind: SourceKind,
    /// Default confidence of a candidate from this source.
    pub confidence: f64,
    /// Authority in ranking, in [0, 1].
    pub authority: f64,
    /// Inferences are stored `pending` and expire unless verified.
    pub inferred: bool,
    /// May this source create procedural or instruction memory?
    pub may_instruct: bool,
}

/// Ranking weights: `α·sim + β·scope + γ·freshness + δ·authority + ε·typefit + ζ·entity − λ·risk`.
#[derive(Debug, Clone, Copy)]
pub struct RankWeights {
    pub similarity: f64,
    pub scope: f64,
    pub freshness: f64,
    pub authority: f64,
    pub typefit: f64,
    pub entity: f64,
    pub risk: f64,
    /// Weight of embedding cosine when both sides carry an embedding.
    pub embedding: f64,
    /// Multiplier for failed episodes (kept, down-weighted).
    pub failed_episode: f64,
    /// BM25 parameters.
    pub bm25_k1: f64,
    pub bm25_b: f64,
}

/// Half-life of freshness decay per kind, in days (`None` = no decay).
#[derive(Debug, Clone, Copy)]
pub struct Decay {
    pub kind: MemoryKind,
    pub half_life_days: Option<f64>,
}

/// The whole configuration.
#[derive(Debug, Clone)]
pub struct Policy {
    pub version: &'static str,
    pub sources: [SourceTrust; 6],
    pub rank: RankWeights,
    pub decay: [Decay; 3],
    /// Unverified inferences expire after this many days (seed 001: a week).
    pub inference_ttl_days: i64,
    /// Writes allowed per scope (tenant+user+project) per window.
    pub rate_limit_writes: u64,
    pub rate_limit_window_minutes: i64,
    /// Candidates read from the store per query, at most.
    pub recall_candidate_limit: u32,
    /// Minimum relevance for the admission gate.
    pub admission_min_relevance: f64,
}

impl Policy {
    pub fn source(&self, kind: SourceKind) -> &SourceTrust {
        self.sources
            .iter()
            .find(|s| s.kind == kind)
            .unwrap_or(&self.sources[0])
    }

    pub fn half_life(&self, kind: MemoryKind) -> Option<f64> {
        self.decay
            .iter()
            .find(|d| d.kind == kind)
            .and_then(|d| d.half_life_days)
    }
}

impl Default for Policy {
    fn default() -> Self {
        let src = |kind, confidence, authority, inferred, may_instruct| SourceTrust {
            kind,
            confidence,
            authority,
            inferred,
            may_instruct,
        };
        Policy {
            version: POLICY_VERSION,
            sources: [
                src(SourceKind::User, 0.95, 0.9, false, true),
                src(SourceKind::System, 0.95, 1.0, false, true),
                src(SourceKind::Document, 0.75, 0.6, false, false),
                src(SourceKind::Tool, 0.8, 0.7, false, false),
                src(SourceKind::Behavior, 0.6, 0.4, true, false),
                src(SourceKind::Agent, 0.6, 0.4, true, false),
            ],
            rank: RankWeights {
                similarity: 1.0,
                scope: 0.05,
                freshness: 0.05,
                authority: 0.05,
                typefit: 0.05,
                entity: 0.3,
                risk: 0.5,
                embedding: 0.5,
                failed_episode: 0.85,
                bm25_k1: 1.2,
                bm25_b: 0.75,
            },
            decay: [
                Decay {
                    kind: MemoryKind::Semantic,
                    half_life_days: None,
                },
                Decay {
                    kind: MemoryKind::Episodic,
                    half_life_days: Some(31.0),
                },
                Decay {
                    kind: MemoryKind::Procedural,
                    half_life_days: None,
                },
            ],
            inference_ttl_days: 7,
            rate_limit_writes: 600,
            rate_limit_window_minutes: 1,
            recall_candidate_limit: 400,
            admission_min_relevance: 0.0,
        }
    }
}
