//! Forget, tombstones, and history/list/sweep (`sweep`).

pub mod forget;
pub mod sweep;
pub mod tombstone;
