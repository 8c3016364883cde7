//! Shared foundations.

pub mod api;
pub mod config;
pub mod errors;
pub mod limits;
pub mod model;
pub mod store;
pub mod time;
