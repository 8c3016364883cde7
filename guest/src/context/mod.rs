//! Context packing and compression.

pub mod compress;
pub mod pack;
