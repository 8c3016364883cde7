//! Context packing under a token budget.

use crate::api::Ctx;
use crate::types::{Error, PackRequest, PackedContext};

pub fn pack(_ctx: &Ctx, _request: &PackRequest) -> Result<PackedContext, Error> {
    Err(Error::Unsupported(
        "pack lands with the context-packing issue".into(),
    ))
}
