//! Forget, tombstones, review of pending memories, and history/list/sweep
//! (`sweep`).

pub mod forget;
pub mod review;
pub mod sweep;
pub mod tombstone;
