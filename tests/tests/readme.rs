//! The README's command-line and `engram serve` examples print what the
//! README says they print (issue 31: the README's own example —
//! "以后请叫我林工", then "怎么称呼我？" — must answer). The blocks after
//! `<!-- example: cli -->` and `<!-- example: serve -->` are read from the
//! README itself: a `sh` block and a `text` block whose lines are the
//! output's lines, cut at each `…` (every piece must appear, in order).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `sh` and `text` blocks after `marker` in the README.
fn example(marker: &str) -> (String, String) {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let after = readme
        .split_once(marker)
        .unwrap_or_else(|| panic!("README.md has no {marker}"))
        .1;
    let block = |s: &str, fence: &str| -> (String, usize) {
        let open = format!("```{fence}\n");
        let start = s
            .find(&open)
            .unwrap_or_else(|| panic!("README.md: no ```{fence} block after {marker}"))
            + open.len();
        let len = s[start..].find("\n```").expect("an unterminated block");
        (s[start..start + len + 1].to_string(), start + len + 4)
    };
    let (code, end) = block(after, "sh");
    let (text, _) = block(&after[end..], "text");
    (code, text)
}

/// Every piece of `expected` (cut at `…`) occurs in `line`, in order.
fn matches(line: &str, expected: &str) -> bool {
    let mut at = 0;
    for piece in expected.split('…').filter(|p| !p.is_empty()) {
        match line[at..].find(piece) {
            Some(i) => at += i + piece.len(),
            None => return false,
        }
    }
    true
}

fn assert_lines(what: &str, got: &str, expected: &str) {
    let got: Vec<&str> = got.lines().collect();
    let want: Vec<&str> = expected.lines().collect();
    assert_eq!(
        got.len(),
        want.len(),
        "the README's {what} example prints {} lines, the README shows {}:\n{}",
        got.len(),
        want.len(),
        got.join("\n")
    );
    for (g, w) in got.iter().zip(&want) {
        assert!(
            matches(g, w),
            "the README's {what} example prints\n  {g}\nwhere the README shows\n  {w}"
        );
    }
}

/// A directory whose `engram` is the CLI built by this package.
fn bin_dir(tmp: &Path) -> PathBuf {
    let dir = tmp.join("bin");
    std::fs::create_dir_all(&dir).expect("bin dir");
    let link = dir.join("engram");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_engram-cli"), &link).expect("symlink engram");
    dir
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("engram-readme-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn run_cli_example(dir: &Path) -> String {
    let (code, _) = example("<!-- example: cli -->");
    let path = format!(
        "{}:{}",
        bin_dir(dir).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &code])
        .current_dir(dir)
        .env("PATH", path)
        .env(
            "ENGRAM_CACHE_DIR",
            std::env::temp_dir().join("engram-tests-cache"),
        )
        .stderr(Stdio::inherit())
        .output()
        .expect("run bash");
    assert!(out.status.success(), "the README's CLI example failed");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_cli_example_prints_what_the_readme_shows() {
    let dir = temp("cli");
    let got = run_cli_example(&dir);
    let (_, expected) = example("<!-- example: cli -->");
    assert_lines("command-line", &got, &expected);
}

#[test]
fn the_serve_example_answers_what_the_readme_shows() {
    let dir = temp("serve");
    run_cli_example(&dir);
    let (code, expected) = example("<!-- example: serve -->");
    // The example's request body and route, sent to a server on a free
    // port (the README's fixed port may be taken on a test machine).
    let body = code
        .split_once("-d '")
        .and_then(|(_, r)| r.split_once('\''))
        .map(|(b, _)| b.to_string())
        .expect("a -d '…' body in the serve example");
    let route = code
        .split_whitespace()
        .find_map(|w| w.strip_prefix("localhost:8077").map(str::to_string))
        .expect("a localhost:8077/… route in the serve example");
    let keys = dir.join("keys.jsonl");
    let key = engram_tests::engram_bin!()
        .args(["keys", "add", "--keys"])
        .arg(&keys)
        .args(["--tenant", "acme", "--user", "u42"])
        .output()
        .expect("keys add");
    assert!(key.status.success(), "engram keys add failed");
    let key = String::from_utf8(key.stdout)
        .expect("UTF-8")
        .trim()
        .to_string();
    let db = dir.join("memory.db");
    let mut serve = engram_tests::edge::serve_process::ServeProcess::new(
        env!("CARGO_BIN_EXE_engram-cli"),
        db.to_str().expect("path"),
        &keys,
        &[],
    );
    serve.start("");
    let url = format!(
        "{}{route}",
        engram_tests::edge::scenario::Target::base(&serve)
    );
    let got = ureq::post(&url)
        .header("Authorization", &format!("Bearer {key}"))
        .send(body.as_bytes())
        .expect("POST")
        .body_mut()
        .read_to_string()
        .expect("body");
    assert_lines("serve", got.trim_end(), &expected);
}
