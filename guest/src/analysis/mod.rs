//! Text analysis shared by the write and read pipelines.

pub mod cues;
pub mod stem;
pub mod text;
pub mod timeexpr;
pub mod tokens;
