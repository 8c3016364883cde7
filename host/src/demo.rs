//! `engram demo`: a narrated end-to-end run on a fresh embedded store.

use crate::cli::{Cli, Failure};

pub fn run(_cli: &Cli, _out: &mut dyn std::io::Write) -> Result<(), Failure> {
    Err(Failure {
        code: 1,
        message: "demo: not yet written".into(),
    })
}
