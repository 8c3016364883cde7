//! Generates the Rust types of the WIT data model (`engram:memory/types`)
//! with wit-bindgen, once for every crate: the guest, this contract and the
//! wasmtime host all use these types (the guest's and the host's bindings
//! map the interface here with `with`).
//!
//! Attributes are derived from the WIT itself, not listed by hand: every
//! enum gets serde (its JSON spelling is its WIT name) and, with the
//! `schema` feature, a JSON Schema; every record, variant and enum gets
//! wasmtime's component derives behind the `wasmtime` feature, each field
//! and case named as in WIT.
//!
//! It also compiles the reason vocabulary (`contract/reasons.txt`) into the
//! enum `ReasonCode` (`build/reasons.rs`).

use std::path::PathBuf;

use wit_bindgen_core::{Files, WorldGenerator};
use wit_parser::{Resolve, TypeDefKind};

#[path = "build/names.rs"]
mod names;
#[path = "build/reasons.rs"]
mod reasons;

use names::camel;

const INTERFACE: &str = "engram:memory/types@0.1.0";

const WORLD: &str = "package engram:contract;

/// The data model alone: the types every operation is written in.
world data-model {
    import engram:memory/types@0.1.0;
}
";

fn main() -> anyhow::Result<()> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let wit = manifest.join("../wit");
    println!("cargo:rerun-if-changed={}", wit.display());

    let mut resolve = Resolve::default();
    let (memory_pkg, _) = resolve.push_path(&wit)?;
    let contract_pkg = resolve.push_str("data-model.wit", WORLD)?;
    let world = resolve.select_world(&[contract_pkg], Some("data-model"))?;

    let types = resolve.packages[memory_pkg].interfaces["types"];
    let mut type_attrs = Vec::new();
    let mut member_attrs = Vec::new();
    let mut names = String::new();
    for (name, id) in &resolve.interfaces[types].types {
        let selector = format!("{INTERFACE}/{name}");
        let component = |shape: &str| {
            format!(
                "#[cfg_attr(feature = \"wasmtime\", derive(wasmtime::component::ComponentType, \
                 wasmtime::component::Lift, wasmtime::component::Lower), component({shape}))]"
            )
        };
        let mut named = |member: &str| {
            member_attrs.push((
                format!("{selector}.{member}"),
                format!("#[cfg_attr(feature = \"wasmtime\", component(name = \"{member}\"))]"),
            ));
        };
        match &resolve.types[*id].kind {
            TypeDefKind::Record(r) => {
                type_attrs.push((selector.clone(), component("record")));
                r.fields.iter().for_each(|f| named(&f.name));
            }
            TypeDefKind::Variant(v) => {
                type_attrs.push((selector.clone(), component("variant")));
                v.cases.iter().for_each(|c| named(&c.name));
            }
            TypeDefKind::Enum(e) => {
                type_attrs.push((selector.clone(), component("enum")));
                type_attrs.push((
                    selector.clone(),
                    "#[derive(serde::Serialize, serde::Deserialize)] #[serde(rename_all = \"kebab-case\")]"
                        .to_string(),
                ));
                type_attrs.push((
                    selector.clone(),
                    "#[cfg_attr(feature = \"schema\", derive(schemars::JsonSchema))]".to_string(),
                ));
                e.cases.iter().for_each(|c| named(&c.name));
                let cases: Vec<&str> = e.cases.iter().map(|c| c.name.as_str()).collect();
                names.push_str(&enum_names(name, &cases));
            }
            _ => {}
        }
    }

    let opts = wit_bindgen_rust::Opts {
        generate_unused_types: true,
        additional_derive_attributes: vec!["PartialEq".to_string()],
        additional_type_attributes: type_attrs,
        additional_member_attributes: member_attrs,
        format: true,
        generate_all: true,
        disable_custom_section_link_helpers: true,
        ..Default::default()
    };
    let mut files = Files::default();
    opts.build().generate(&mut resolve, world, &mut files)?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let (_, contents) = files.iter().next().expect("one file generated");
    let source = std::str::from_utf8(contents)?;
    std::fs::write(out.join("data_model.rs"), without_world_section(source))?;
    std::fs::write(out.join("names.rs"), names)?;

    let vocabulary = manifest.join("reasons.txt");
    println!("cargo:rerun-if-changed={}", vocabulary.display());
    let list =
        reasons::parse(&std::fs::read_to_string(&vocabulary)?).map_err(anyhow::Error::msg)?;
    std::fs::write(out.join("reasons.rs"), reasons::generate(&list))?;
    Ok(())
}

/// The generated source without the custom section that describes the
/// `data-model` world: the types belong to whichever component links them,
/// and that component's own bindings describe its world.
fn without_world_section(source: &str) -> &str {
    match source.find("link_section = \"component-type:") {
        Some(at) => {
            let start = source[..at].rfind("#[rustfmt::skip]").unwrap_or(at);
            &source[..start]
        }
        None => source,
    }
}

/// `name`, `from_name` and `ALL` for one WIT enum: its cases as the
/// contract spells them (the WIT names), with no table written by hand.
fn enum_names(wit: &str, cases: &[&str]) -> String {
    let ty = camel(wit);
    let to = cases
        .iter()
        .map(|c| format!("{ty}::{} => \"{c}\",", camel(c)))
        .collect::<String>();
    let from = cases
        .iter()
        .map(|c| format!("\"{c}\" => Some({ty}::{}),", camel(c)))
        .collect::<String>();
    let all = cases
        .iter()
        .map(|c| format!("{ty}::{},", camel(c)))
        .collect::<String>();
    format!(
        "impl {ty} {{
    /// Every case, in WIT order.
    pub const ALL: &'static [{ty}] = &[{all}];
    /// The case's name in WIT and in JSON.
    pub const fn name(self) -> &'static str {{ match self {{ {to} }} }}
    /// The case named `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {{ match name {{ {from} _ => None }} }}
}}
"
    )
}
