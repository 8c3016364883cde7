//! The `engram:memory/types` interface as a wasmtime host binds it: the
//! data model's types (they implement wasmtime's component traits with the
//! `wasmtime` feature) and the interface's `Host` trait and `add_to_linker`,
//! which have nothing to do since the interface has no functions. Written
//! as wasmtime's `bindgen!` writes them for a types-only interface, so a
//! host's `bindgen!` can map the interface here with `with`.

pub use crate::types::*;

use wasmtime::component::{HasData, Linker, LinkerInstance};

/// What the host provides with a store in scope: nothing.
pub trait HostWithStore<T>: HasData {}
impl<H: ?Sized, T> HostWithStore<T> for H where H: HasData {}

/// What the host provides: nothing (the interface only defines types).
pub trait Host {}
impl<H: Host + ?Sized> Host for &mut H {}

pub fn add_to_linker_instance<T, D>(
    _inst: &mut LinkerInstance<'_, T>,
    _host_getter: fn(&mut T) -> D::Data<'_>,
) -> wasmtime::Result<()>
where
    D: HostWithStore<T>,
    for<'a> D::Data<'a>: Host,
    T: 'static,
{
    Ok(())
}

pub fn add_to_linker<T, D>(
    linker: &mut Linker<T>,
    host_getter: fn(&mut T) -> D::Data<'_>,
) -> wasmtime::Result<()>
where
    D: HostWithStore<T>,
    for<'a> D::Data<'a>: Host,
    T: 'static,
{
    let mut inst = linker.instance("engram:memory/types@0.1.0")?;
    add_to_linker_instance::<T, D>(&mut inst, host_getter)
}
