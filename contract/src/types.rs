//! The WIT data model (`engram:memory/types`) as Rust types.

mod generated {
    include!(concat!(env!("OUT_DIR"), "/data_model.rs"));
}

pub use generated::engram::memory::types::*;

// `name`, `from_name` and `ALL` for every enum, generated from the WIT.
include!(concat!(env!("OUT_DIR"), "/names.rs"));

impl Sensitivity {
    /// The level's rank, 0 (`public`) to 3 (`sensitive`): its place in
    /// `wit/types.wit`, lowest first. Every store compares levels (recall's
    /// ceiling) by this rank, and stores it in their `sensitivity` column.
    pub const fn rank(self) -> u8 {
        match self {
            Sensitivity::Public => 0,
            Sensitivity::Internal => 1,
            Sensitivity::Personal => 2,
            Sensitivity::Sensitive => 3,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sensitivity;

    #[test]
    fn sensitivity_ranks_follow_the_wit_order() {
        let ranks: Vec<u8> = Sensitivity::ALL.iter().map(|s| s.rank()).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
        assert!(Sensitivity::Sensitive.rank() > Sensitivity::Personal.rank());
    }
}
