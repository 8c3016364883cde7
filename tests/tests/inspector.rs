//! The memory inspector page end to end: `engram serve` on a seeded store,
//! driven in headless Chromium at 1280×800 by `tests/browser/inspector.mjs`
//! (Node and playwright-core): connect with a key, filter, search and read an
//! explanation, open a history with every row button reachable beside it,
//! correct a memory by its text alone and see the old revision superseded
//! (not reinforced), forget only after a confirmation that says what goes,
//! approve a pending inference, preview a pack, and never see another
//! tenant. The store is then read back through the CLI: the corrections
//! superseded their old revisions at their old confidence, and the
//! forgotten memory is gone.
//!
//! Chromium, a CJK font and playwright-core are provisioned by the test
//! (`engram_tests::provision`). With `ENGRAM_INSPECTOR_SCREENSHOTS=DIR` the
//! script also writes the main views there (how `docs/screenshots/` is made).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use engram_tests::{engram_bin, provision};

/// The instant the store is seeded and served at, so runs are reproducible.
const NOW: &str = "2026-12-01T10:00:00+08:00";

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A new API key for a principal, from `engram keys add`.
fn add_key(keys: &Path, tenant: &str, user: &str) -> String {
    let out = provision::run(
        engram_bin!()
            .args(["keys", "add", "--keys"])
            .arg(keys)
            .args(["--tenant", tenant, "--user", user]),
        "engram keys add",
    );
    let key = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        !key.is_empty() && !key.contains('\n'),
        "one key on stdout: {key:?}"
    );
    key
}

/// Seed the store with the memories the page is driven over (Chinese and
/// English; stated, system-of-record, inferred; two tenants).
fn seed(db: &Path) {
    let seed = std::fs::read(repo_file("browser/inspector-seed.jsonl")).expect("read the seed");
    let mut child = engram_bin!()
        .arg("--db")
        .arg(db)
        .args(["--now", NOW, "remember"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engram remember");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&seed)
        .expect("write the seed");
    let out = child.wait_with_output().expect("engram remember");
    assert!(
        out.status.success(),
        "seeding failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decisions = String::from_utf8_lossy(&out.stdout);
    assert_eq!(decisions.lines().count(), 12, "{decisions}");
    assert_eq!(
        decisions.matches("\"disposition\":\"pending\"").count(),
        2,
        "the two inferences wait for review: {decisions}"
    );
}

/// Every revision of a memory, read from the store by `engram history`.
fn history(db: &Path, id: &str) -> Vec<serde_json::Value> {
    let out = provision::run(
        engram_bin!()
            .arg("--db")
            .arg(db)
            .args(["--now", NOW, "--tenant", "acme", "history", "--id", id]),
        "engram history",
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What the page did, as the browser script reports it: each corrected
/// memory with its confidence before the correction, and the forgotten one.
fn reported<'a>(stdout: &'a str, tag: &str) -> Vec<Vec<&'a str>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(tag))
        .map(|rest| rest.split_whitespace().collect())
        .collect()
}

/// Start `engram serve` on a free loopback port; returns it and its URL.
fn serve(db: &Path, keys: &Path) -> (Server, String) {
    let mut child = engram_bin!()
        .arg("--db")
        .arg(db)
        .args(["--now", NOW, "serve", "--listen", "127.0.0.1:0", "--keys"])
        .arg(keys)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engram serve");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else {
            panic!("engram serve exited before listening");
        };
        if let Some(rest) = line.split("listening on ").nth(1) {
            let url = rest.split_whitespace().next().unwrap_or_default();
            // Keep draining stderr so the server never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines.by_ref() {});
            return (server, format!("{url}/"));
        }
    }
    panic!("engram serve did not say where it listens within 60 s")
}

#[test]
fn the_inspector_page_works_end_to_end_in_chromium() {
    let t = Instant::now();
    let chromium = provision::chromium();
    let playwright = provision::playwright_core();
    eprintln!("provisioned in {:.1?}", t.elapsed());

    let dir = std::env::temp_dir().join(format!("engram-inspector-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = dir.join("memory.db");
    let keys = dir.join("keys.json");
    seed(&db);
    let key = add_key(&keys, "acme", "u42");
    let other = add_key(&keys, "globex", "u7");
    let (server, url) = serve(&db, &keys);

    let mut node = Command::new("node");
    node.arg(repo_file("browser/inspector.mjs"))
        .env("INSPECTOR_URL", &url)
        .env("INSPECTOR_KEY", &key)
        .env("OTHER_KEY", &other)
        .env("CHROMIUM", &chromium)
        .env("PLAYWRIGHT_DIR", &playwright);
    if let Ok(shots) = std::env::var("ENGRAM_INSPECTOR_SCREENSHOTS") {
        std::fs::create_dir_all(&shots).expect("screenshot dir");
        node.env("SCREENSHOTS", shots);
    }
    let out = node.output().expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the browser run failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(stdout.contains("inspector: every step passed"), "{stdout}");
    drop(server);

    // The store agrees with the page: each correction made by the text
    // alone is the active revision 2, and revision 1 is superseded by it at
    // the confidence it had (a correction is not a confirmation).
    let corrected = reported(&stdout, "corrected: ");
    assert_eq!(corrected.len(), 2, "{stdout}");
    for c in &corrected {
        let [id, confidence] = c[..] else {
            panic!("corrected: ID CONFIDENCE expected, got {c:?}")
        };
        let revs = history(&db, id);
        let status: Vec<&str> = revs
            .iter()
            .map(|r| r["status"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(status, ["superseded", "active"], "{id}: {revs:?}");
        assert_eq!(revs[0]["superseded_by"]["revision"], 2, "{revs:?}");
        assert_eq!(revs[1]["source"]["kind"], "user", "{revs:?}");
        let before: f64 = confidence.parse().expect("a confidence");
        assert_eq!(
            revs[0]["confidence"].as_f64(),
            Some(before),
            "{id}: {revs:?}"
        );
    }
    let forgotten = reported(&stdout, "forgotten: ");
    assert_eq!(forgotten.len(), 1, "{stdout}");
    let id = forgotten[0][0];
    let out = engram_bin!()
        .arg("--db")
        .arg(&db)
        .args(["--now", NOW, "--tenant", "acme", "history", "--id", id])
        .output()
        .expect("run engram history");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains(&format!("no memory with id '{id}'")),
        "the confirmed forget erased every revision: {stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("inspector test took {:.1?}", t.elapsed());
}
