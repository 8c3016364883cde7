//! How the build spells a WIT, vocabulary or field name as a Rust or
//! TypeScript identifier. Shared by the contract's build, its schema
//! module and the guest's build (each includes this file by `#[path]`).

/// `UpperCamelCase` of a kebab-case WIT name or a snake_case name, as
/// wit-bindgen spells Rust identifiers.
pub fn camel(name: &str) -> String {
    name.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
