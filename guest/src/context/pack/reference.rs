//! How the manifest names what it lists: a memory as `id#revision`, and a
//! left-out item with its reason. One source for both, shared by every
//! stage that leaves something out.

use crate::types::DropReason;
use crate::types::DroppedItem;
use crate::types::Memory;

pub(super) fn dropped(reference: String, reason: DropReason) -> DroppedItem {
    DroppedItem { reference, reason }
}

pub(super) fn mem_ref(m: &Memory) -> String {
    format!("{}#{}", m.id, m.revision)
}
