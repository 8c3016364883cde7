//! The read pipeline: index terms, intent, ranking, recall.

pub mod coverage;
pub mod index;
pub mod intent;
pub mod rank;
pub mod recall;
