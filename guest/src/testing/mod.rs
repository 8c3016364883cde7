//! Native test support (the `testing` feature): the in-memory store, the
//! seed release scenario, and unit-test fixtures.

pub mod demo;
pub mod memstore;

#[cfg(test)]
pub(crate) mod test_fixtures;
