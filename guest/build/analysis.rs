//! The guest's analyser, compiled into the build script from the guest's
//! own files so that the vocabulary tables hold exactly the terms a query
//! or a memory produces.

#[allow(dead_code)]
#[path = "../src/analysis/stem.rs"]
pub(crate) mod stem;
#[allow(dead_code)]
#[path = "../src/analysis/text.rs"]
pub(crate) mod text;
