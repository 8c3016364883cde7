//! How the build spells a WIT or vocabulary name as a Rust identifier.

/// `UpperCamelCase` of a WIT name, as wit-bindgen spells Rust identifiers.
pub fn camel(wit: &str) -> String {
    wit.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
