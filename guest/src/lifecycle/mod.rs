//! Forget, tombstones, review of pending memories, history/list/sweep
//! (`sweep`), and execution records by operation id (`operations`).

pub mod forget;
pub mod operations;
pub mod review;
pub mod sweep;
pub mod tombstone;
