//! The write pipeline, one module per stage:
//!
//! validate (`validate`) → scan, detect, kind, model, hint, payload
//! (`classify`, whose `classify` function reads as these stages; the
//! detectors in `detect`, the learned heads in `model`, a fact's key in
//! `key`) → gates (`gates`) → resolve (`resolve`) → commit (`remember`,
//! which runs them for `classify`, `remember` and `import`; `import` adds
//! what a decided record needs).

pub mod classify;
pub mod detect;
pub mod gates;
pub mod identity;
pub mod import;
pub mod key;
pub mod model;
pub mod remember;
pub mod resolve;
pub mod validate;
