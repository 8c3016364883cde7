//! Detectors the write pipeline runs over candidate text.

pub mod injection;
pub mod secrets;
