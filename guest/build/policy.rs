//! The policy version, derived: `engram-policy/<date>-<digest>`, where the
//! date is the one recorded in `guest/policy-version.txt` and the digest is
//! a SHA-256 (first 12 hex digits) of what the policy decides with:
//!
//! - every vocabulary file (`guest/vocab/**/*.txt`, cue families included),
//! - the model weights compiled into the component (`guest/model/*.bin`),
//! - the thresholds: the code of `src/core/config.rs` (comments and
//!   whitespace left out, so rewording a comment changes nothing) and every
//!   `f64` constant declared in `src/` (margins and cut-offs kept beside
//!   their code, such as the kind model's margins in
//!   `write/classify/learned.rs`), by name and value, whatever file holds
//!   it: moving code changes nothing.
//!
//! `$OUT_DIR/policy_version.rs` carries the version, the computed digest and
//! the digest recorded in `guest/policy-version.txt`; a test
//! (`core::config::tests::the_policy_version_is_recorded`) fails while the
//! two differ, telling the developer to record the new digest and date.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Files under `dir` (recursively) whose name ends in `ext`, sorted.
fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

fn sorted(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    walk(dir, ext, &mut v);
    v.sort();
    v
}

/// Rust code without comments, one trimmed line per non-empty line. Line
/// comments are cut at `//` outside string literals; doc comments go too.
fn code_only(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut escaped = false;
        let mut cut = line.len();
        let b = line.as_bytes();
        for i in 0..b.len() {
            match b[i] {
                _ if escaped => escaped = false,
                b'\\' if in_str => escaped = true,
                b'"' => in_str = !in_str,
                b'/' if !in_str && b.get(i + 1) == Some(&b'/') => {
                    cut = i;
                    break;
                }
                _ => {}
            }
        }
        let code = line[..cut].trim();
        if !code.is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}

/// `const NAME: f64 = …;` declarations, trimmed, without their visibility
/// (`pub`, `pub(crate)`).
fn f64_consts(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .map(|l| l.strip_prefix("pub ").unwrap_or(l))
        .map(|l| l.strip_prefix("pub(crate) ").unwrap_or(l))
        .filter(|l| l.starts_with("const ") && l.contains(": f64 ="))
        .map(str::to_string)
        .collect()
}

/// The recorded `date` and `digest` of `guest/policy-version.txt`.
fn recorded(path: &Path) -> (String, String) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (mut date, mut digest) = (None, None);
    for l in text.lines().map(str::trim) {
        if l.starts_with('#') || l.is_empty() {
            continue;
        }
        match l.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("date", v)) => date = Some(v.to_string()),
            Some(("digest", v)) => digest = Some(v.to_string()),
            _ => panic!("{}: expected `date = …` or `digest = …`", path.display()),
        }
    }
    let date = date.unwrap_or_else(|| panic!("{}: no `date = …`", path.display()));
    if date.is_empty() || !date.chars().all(|c| c.is_ascii_digit() || c == '.') {
        panic!(
            "{}: the date is digits and dots (2026.12.05)",
            path.display()
        );
    }
    (date, digest.unwrap_or_default())
}

pub fn generate(manifest: &Path, dest: &Path) {
    let record = manifest.join("policy-version.txt");
    for p in [&record, &manifest.join("model"), &manifest.join("src")] {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let mut h = Sha256::new();
    let mut feed = |label: &str, path: &Path, bytes: &[u8]| {
        let rel = path.strip_prefix(manifest).unwrap_or(path);
        // Separators, so that moving bytes between inputs changes the digest.
        h.update(format!("{label} {} {}\n", rel.display(), bytes.len()).as_bytes());
        h.update(bytes);
    };
    let read =
        |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
    for p in sorted(&manifest.join("vocab"), "txt") {
        let text = String::from_utf8_lossy(&read(&p)).replace("\r\n", "\n");
        feed("vocab", &p, text.as_bytes());
    }
    let mut weights: Vec<PathBuf> = std::fs::read_dir(manifest.join("model"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    weights.retain(|p| p.is_file() && p.extension().is_some_and(|x| x == "bin"));
    weights.sort();
    for p in weights {
        feed("weights", &p, &read(&p));
    }
    let config = manifest.join("src/core/config.rs");
    feed(
        "thresholds",
        &config,
        code_only(&String::from_utf8_lossy(&read(&config))).as_bytes(),
    );
    // The constants by what they say, not where they are: moving code
    // between files leaves the version alone.
    let mut consts: Vec<String> = sorted(&manifest.join("src"), "rs")
        .iter()
        .flat_map(|p| f64_consts(&String::from_utf8_lossy(&read(p))))
        .collect();
    consts.sort();
    feed(
        "constants",
        &manifest.join("src"),
        consts.join("\n").as_bytes(),
    );
    let digest: String = h.finalize()[..6].iter().fold(String::new(), |mut s, b| {
        write!(s, "{b:02x}").unwrap();
        s
    });
    let (date, recorded) = recorded(&record);
    let out = format!(
        "// Generated by guest/build.rs (build/policy.rs). Do not edit.\n\n\
         /// Version of the policy, recorded on every decision and memory:\n\
         /// `engram-policy/<date>-<digest of the policy's data>`.\n\
         pub const POLICY_VERSION: &str = \"engram-policy/{date}-{digest}\";\n\
         /// The digest of the policy's data, as computed by this build.\n\
         pub const POLICY_DIGEST: &str = \"{digest}\";\n\
         /// The digest recorded in `guest/policy-version.txt`.\n\
         pub const RECORDED_POLICY_DIGEST: &str = {recorded:?};\n"
    );
    std::fs::write(dest, out).unwrap();
}
