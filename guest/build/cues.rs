//! The cue families: `guest/vocab/cues/*.txt`, one file per family (syntax
//! in `guest/vocab/README.md`), compiled into `$OUT_DIR/cue_tables.rs`:
//! the `Cues` struct with one field per family and its one value `CUES`,
//! the `CueFamily` enum, and the families marked `%scan` as the `ScanList`
//! enum with `Cues::scan_lists` in the same order. Adding a family is one
//! data file; nothing here names a family.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::names::camel;

/// One cue family, as its file says.
pub struct Family {
    /// The file's stem: the `Cues` field.
    pub name: String,
    /// Its purpose, from the header's first paragraph.
    pub doc: Vec<String>,
    /// Marked `%scan`: read in `classify::scan`'s one pass.
    pub scan: bool,
    /// Plain cues, or `%group` groups of cues in file order.
    pub groups: Option<Vec<(String, Vec<String>)>>,
    pub cues: Vec<String>,
}

/// The family files, in file-name order.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

/// Parses one family file. Lines: `#` comments (the header), blank lines,
/// `%scan`, `%group NAME`, and cues, one a line; a cue that starts with `#`
/// or `%`, or starts or ends with a space, is written between double quotes.
pub fn parse(path: &Path) -> Family {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let at = |n: usize| format!("{}:{}", path.display(), n + 1);
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        || !name.as_bytes()[0].is_ascii_lowercase()
    {
        panic!(
            "{}: a family's file name is its field name (lowercase, digits, _)",
            path.display()
        );
    }
    let mut family = Family {
        name: name.clone(),
        doc: Vec::new(),
        scan: false,
        groups: None,
        cues: Vec::new(),
    };
    let (mut in_doc, mut syntax, mut source) = (false, false, false);
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            if n == 0 {
                let Some(purpose) = comment.strip_prefix(&format!("{name}:")) else {
                    panic!("{}: the header starts `# {name}: <purpose>`", at(n));
                };
                family.doc.push(purpose.trim().to_string());
                in_doc = true;
            } else if comment.starts_with("Syntax:") {
                syntax = true;
                in_doc = false;
            } else if comment.starts_with("Source:") {
                source = true;
                in_doc = false;
            } else if in_doc && !comment.is_empty() {
                family.doc.push(comment.to_string());
            } else {
                in_doc = false;
            }
            continue;
        }
        in_doc = false;
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if l == "%scan" {
            family.scan = true;
            continue;
        }
        if let Some(group) = l.strip_prefix("%group ") {
            if !family.cues.is_empty() {
                panic!("{}: cues before the first %group", at(n));
            }
            family
                .groups
                .get_or_insert_with(Vec::new)
                .push((group.trim().to_string(), Vec::new()));
            continue;
        }
        if l.starts_with('%') {
            panic!("{}: unknown directive `{l}`", at(n));
        }
        let cue = match l.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
            Some(quoted) => quoted,
            None => l,
        };
        if cue.trim().is_empty() || cue.contains('"') {
            panic!("{}: an empty or badly quoted cue", at(n));
        }
        if cue.chars().any(char::is_uppercase) {
            panic!(
                "{}: cues are lowercase (text is folded before matching)",
                at(n)
            );
        }
        match family.groups.as_mut().and_then(|g| g.last_mut()) {
            Some((_, cues)) => cues.push(cue.to_string()),
            None => family.cues.push(cue.to_string()),
        }
    }
    if family.doc.is_empty() || !syntax || !source {
        panic!(
            "{}: the header gives the family's purpose, `# Syntax:` and `# Source:`",
            path.display()
        );
    }
    let empty = match &family.groups {
        Some(groups) => groups.is_empty() || groups.iter().any(|(_, c)| c.is_empty()),
        None => family.cues.is_empty(),
    };
    if empty {
        panic!("{}: a family (and each group) has cues", path.display());
    }
    if family.scan && family.groups.is_some() {
        panic!("{}: a grouped family cannot be %scan", path.display());
    }
    family
}

fn list(cues: &[String]) -> String {
    let mut s = String::from("&[");
    for c in cues {
        write!(s, "{c:?}, ").unwrap();
    }
    s.push(']');
    s
}

pub fn generate(dir: &Path, dest: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let families: Vec<Family> = files(dir).iter().map(|p| parse(p)).collect();
    let mut out = String::from(
        "// Generated by guest/build.rs (build/cues.rs) from guest/vocab/cues/*.txt. Do not edit.\n\n",
    );
    out.push_str(
        "/// Every cue list the classifier, the detectors and the gates read: one\n\
         /// field per file of `guest/vocab/cues/`, in file-name order.\n\
         #[derive(Debug)]\npub struct Cues {\n",
    );
    for f in &families {
        for d in &f.doc {
            writeln!(out, "    /// {d}").unwrap();
        }
        let ty = if f.groups.is_some() {
            "&'static [(&'static str, CueList)]"
        } else {
            "CueList"
        };
        writeln!(out, "    pub {}: {ty},", f.name).unwrap();
    }
    out.push_str("}\n\n");
    for f in &families {
        let value = match &f.groups {
            Some(groups) => {
                let mut s = String::from("&[\n");
                for (g, cues) in groups {
                    writeln!(s, "    ({g:?}, {}),", list(cues)).unwrap();
                }
                s.push(']');
                s
            }
            None => list(&f.cues),
        };
        let ty = if f.groups.is_some() {
            "&[(&str, CueList)]"
        } else {
            "CueList"
        };
        writeln!(out, "const {}: {ty} = {value};", f.name.to_uppercase()).unwrap();
    }
    out.push_str("\n/// The cue lists of this policy version.\npub static CUES: Cues = Cues {\n");
    for f in &families {
        writeln!(out, "    {}: {},", f.name, f.name.to_uppercase()).unwrap();
    }
    out.push_str("};\n\n");

    out.push_str(
        "/// The cue families, one per file of `guest/vocab/cues/`.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum CueFamily {\n",
    );
    for f in &families {
        writeln!(out, "    {},", camel(&f.name)).unwrap();
    }
    out.push_str("}\n\nimpl CueFamily {\n");
    writeln!(
        out,
        "    /// Every family, in file-name order.\n    pub const ALL: [CueFamily; {}] = [",
        families.len()
    )
    .unwrap();
    for f in &families {
        writeln!(out, "        CueFamily::{},", camel(&f.name)).unwrap();
    }
    out.push_str(
        "    ];\n\n    /// The family's name: its file's stem and its field of `Cues`.\n    \
         pub const fn name(self) -> &'static str {\n        match self {\n",
    );
    for f in &families {
        writeln!(
            out,
            "            CueFamily::{} => {:?},",
            camel(&f.name),
            f.name
        )
        .unwrap();
    }
    out.push_str(
        "        }\n    }\n\n    /// Its cues: a grouped family's groups, or one group named after the\n    \
         /// family.\n    pub const fn groups(self) -> &'static [(&'static str, CueList)] {\n        \
         match self {\n",
    );
    for f in &families {
        let value = if f.groups.is_some() {
            f.name.to_uppercase()
        } else {
            format!("&[({:?}, {})]", f.name, f.name.to_uppercase())
        };
        writeln!(out, "            CueFamily::{} => {value},", camel(&f.name)).unwrap();
    }
    out.push_str("        }\n    }\n}\n\n");

    let scanned: Vec<&Family> = families.iter().filter(|f| f.scan).collect();
    out.push_str(
        "/// The families marked `%scan`: `write::classify::scan` reads them from\n\
         /// the whole text in one pass. Positions in `Cues::scan_lists`.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum ScanList {\n",
    );
    for f in &scanned {
        writeln!(out, "    {},", camel(&f.name)).unwrap();
    }
    writeln!(
        out,
        "}}\n\n/// How many families are marked `%scan`.\npub const SCAN_LISTS: usize = {};\n",
        scanned.len()
    )
    .unwrap();
    out.push_str(
        "impl Cues {\n    /// The `%scan` families' lists, in `ScanList` order.\n    \
         pub const fn scan_lists(&self) -> [CueList; SCAN_LISTS] {\n        [\n",
    );
    for f in &scanned {
        writeln!(out, "            self.{},", f.name).unwrap();
    }
    out.push_str("        ]\n    }\n}\n");
    std::fs::write(dest, out).unwrap();
}
