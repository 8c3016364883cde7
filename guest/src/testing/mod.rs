//! Native test support (the `testing` feature): the in-memory store, the
//! seed release scenario, the shared candidate builder, and unit-test
//! fixtures.

pub mod candidate;
pub mod demo;
pub mod memstore;

#[cfg(test)]
pub(crate) mod test_fixtures;
