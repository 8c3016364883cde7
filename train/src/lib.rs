//! Engram's learned heads outside the runtime. The component carries
//! inference only (`engram_guest::write::model`: weight files compiled in
//! and read in place); this crate builds those files and checks them, and
//! nothing of it is linked into the component:
//!
//! - `data`: the labelled candidate lines and the kind data's fixed test
//!   split;
//! - `featurise`: labelled candidates as the features the classifier
//!   computes;
//! - `recipe`: the deterministic trainer every head shares;
//! - `heads`: the kind and sensitive-data heads (`guest/model/weights.bin`,
//!   `sensitive.bin`), their settings and labels;
//! - `injection`: the learned injection detector's documents, segments and
//!   training (`guest/model/injection.bin`);
//! - `measure`: accuracy, confusion and cross-validation;
//! - `eval`: the labelled sets no training reads, scored through the native
//!   `classify` and held to the floors of `train/eval-floors.txt`;
//! - `command`: the `engram-train` program (`kind`, `injection`,
//!   `retrain-check`, `eval`).
//!
//! Its tests check that every shipped weight file equals a fresh training
//! run, that training is deterministic, that a retrain on a few more lines
//! flips no scenario, and the evaluation floors.

pub mod command;
pub mod data;
pub mod eval;
pub mod featurise;
pub mod heads;
pub mod injection;
pub mod measure;
pub mod recipe;
