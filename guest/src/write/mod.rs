//! The write pipeline: classify, gate, resolve, remember.

pub mod classify;
pub mod detect;
pub mod gates;
pub mod key;
pub mod model;
pub mod remember;
pub mod resolve;
