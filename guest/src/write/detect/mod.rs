//! Detectors the write pipeline runs over candidate text.

pub mod addressee;
pub mod carried;
pub mod directive;
pub mod encoded;
pub mod harmful_code;
pub mod injection;
pub mod secrets;
