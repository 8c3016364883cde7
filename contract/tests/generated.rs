//! The generated renderings of the contract's JSON Schema are checked in;
//! this fails when one is out of date. `ENGRAM_BLESS=1 cargo test -p
//! engram-contract --features schema --test generated` rewrites them.

#![cfg(feature = "schema")]

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("contract/ has a parent")
        .to_path_buf()
}

fn check(path: &str, generated: String) {
    let file = root().join(path);
    if std::env::var_os("ENGRAM_BLESS").is_some() {
        std::fs::write(&file, &generated).expect("write the generated file");
        return;
    }
    let current = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        current == generated,
        "{path} is out of date with the contract: run `ENGRAM_BLESS=1 cargo test -p engram-contract --features schema --test generated`"
    );
}

#[test]
fn the_json_schema_is_up_to_date() {
    let doc = engram_contract::schema::document();
    check(
        "contract/schema/engram-contract.schema.json",
        format!("{}\n", serde_json::to_string_pretty(&doc).expect("JSON")),
    );
}

#[test]
fn the_typescript_types_are_up_to_date() {
    check(
        "packages/npm/types/contract.d.ts",
        engram_contract::schema::typescript(),
    );
}

#[test]
fn the_python_typed_dicts_are_up_to_date() {
    check(
        "packages/python/src/engram_memory/contract.py",
        engram_contract::schema::python(),
    );
}

#[test]
fn the_javascript_constants_are_up_to_date() {
    check(
        "packages/npm/src/contract.js",
        engram_contract::constants::javascript(),
    );
}

#[test]
fn every_operation_is_in_the_schema_with_a_self_contained_input() {
    let doc = engram_contract::schema::document();
    for op in engram_contract::OPERATIONS {
        assert!(doc["operations"][op.name].is_object(), "{}", op.name);
        let input = engram_contract::schema::input_schema(op.name).expect("an input schema");
        assert!(!input.to_string().contains("$ref"), "{}: {input}", op.name);
    }
    let remember = engram_contract::schema::input_schema("remember").unwrap();
    let required: Vec<&str> = remember["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(required, vec!["text", "scope", "source"]);
    assert_eq!(remember["properties"]["scope"]["required"][0], "tenant");
}
