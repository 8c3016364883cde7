//! Deletion: by id, key, text fragment or source event, with tombstones.

use crate::api::Ctx;
use crate::types::{Error, ForgetReport, ForgetSelector};

pub fn forget(_ctx: &Ctx, _selectors: &[ForgetSelector]) -> Result<ForgetReport, Error> {
    Err(Error::Unsupported(
        "forget lands with the versioning-and-forgetting issue".into(),
    ))
}
