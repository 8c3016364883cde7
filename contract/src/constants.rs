//! The contract's constants for hosts written in other languages, generated
//! from the one Rust source of each: the rank of every sensitivity level
//! (`Sensitivity::rank`, which stores compare and store) and the reason
//! codes (`ReasonCode`). `javascript` is the npm package's
//! `src/contract.js`; `python` is appended to the Python typed dicts
//! (`schema::python`). `tests/generated.rs` fails when a file is out of date.

use std::fmt::Write as _;

use crate::reason::ReasonCode;
use crate::types::Sensitivity;

fn ranks(separator: &str) -> String {
    Sensitivity::ALL
        .iter()
        .map(|s| format!("\"{}\"{separator}{}", s.name(), s.rank()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn codes(indent: &str) -> String {
    ReasonCode::ALL.iter().fold(String::new(), |mut out, c| {
        let _ = writeln!(out, "{indent}\"{}\",", c.as_str());
        out
    })
}

/// The npm package's `src/contract.js`.
pub fn javascript() -> String {
    format!(
        "// Generated from the contract (engram_contract::constants) by\n\
         // `cargo test -p engram-contract --features schema` (ENGRAM_BLESS=1 rewrites it).\n\
         // Do not edit.\n\n\
         /** Each sensitivity level's rank, lowest first (`Sensitivity::rank`): stores compare and store it. */\n\
         export const SENSITIVITY_RANK = Object.freeze({{ {} }});\n\n\
         /** Every reason code of the vocabulary (contract/reasons.txt), in its order. */\n\
         export const REASON_CODES = Object.freeze([\n{}]);\n",
        ranks(": "),
        codes("  ")
    )
}

/// The Python constants, appended to `engram_memory/contract.py`.
pub fn python() -> String {
    format!(
        "\nSENSITIVITY_RANK: Dict[str, int] = {{{}}}\n\
         \"\"\"Each sensitivity level's rank, lowest first (`Sensitivity::rank`): stores compare and store it.\"\"\"\n\n\
         REASON_CODES: Tuple[str, ...] = (\n{})\n\
         \"\"\"Every reason code of the vocabulary (contract/reasons.txt), in its order.\"\"\"\n",
        ranks(": "),
        codes("    ")
    )
}
