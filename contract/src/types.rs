//! The WIT data model (`engram:memory/types`) as Rust types.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/data_model.rs"));
}

pub use generated::engram::memory::types::*;

// `name`, `from_name` and `ALL` for every enum, generated from the WIT.
include!(concat!(env!("OUT_DIR"), "/names.rs"));
