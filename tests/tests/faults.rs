//! Faults as tests, on real `engram` processes (SPEC §4: one invocation is
//! one transaction): kill -9 in the middle of a large `import` and a large
//! `remember`, several writers and readers on one file, a database locked by
//! another process, a full disk, and a read-only file or directory. Each
//! ends all or nothing, with `integrity_check` ok, a clear error naming the
//! file where there is one, and a store that works afterwards.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use engram_tests::*;
use serde_json::Value;

const NOW: &str = "2026-08-01T10:00:00+08:00";

/// Start `engram <cmd> --db <db>` with `input` on its standard input.
fn spawn(mut cmd: Command, args: &[&str], db: &str, input: Vec<u8>) -> Child {
    let mut child = cmd
        .args(args)
        .args(["--db", db, "--now", NOW])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engram");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A writer thread: a large input must not block on a full pipe.
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    child
}

fn run(cmd: Command, args: &[&str], db: &str, input: Vec<u8>) -> Output {
    spawn(cmd, args, db, input)
        .wait_with_output()
        .expect("engram ends")
}

fn run_ok(args: &[&str], db: &str, input: Vec<u8>) -> String {
    let out = run(engram_bin!(), args, db, input);
    assert!(
        out.status.success(),
        "engram {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json_lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Rows per table: what "all or nothing" is judged by.
fn counts(db: &str) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(db).expect("open");
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>())
        .expect("tables");
    tables
        .into_iter()
        .map(|t| {
            let n = conn
                .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                .expect("count");
            (t, n)
        })
        .collect()
}

fn import_lines(tag: &str, n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"external_id":"{tag}-{i}","kind":"episodic","text":"{tag} event {i}: the nightly job on host-{} finished after {} minutes","scope":{{"tenant":"t","user":"u"}},"source":{{"kind":"system","ref":"{tag}"}}}}"#,
            i % 53,
            i % 17
        ));
        s.push('\n');
    }
    s.into_bytes()
}

fn remember_lines(tag: &str, user: &str, n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"text":"Yesterday I deployed build {tag}-{i} of the billing service to staging and the smoke test passed","scope":{{"tenant":"t","user":"{user}"}},"source":{{"kind":"user","ref":"{tag}"}}}}"#
        ));
        s.push('\n');
    }
    s.into_bytes()
}

/// A fresh database holding a few records (and a compiled component in
/// the test cache, so later timings are not a cold start).
fn seeded(name: &str) -> String {
    let db = temp_db(name);
    run_ok(&["import"], &db, import_lines("seed", 3));
    db
}

/// When to kill.
#[derive(Clone, Copy, Debug)]
enum Trigger {
    After(Duration),
    /// Once the WAL has grown by this many bytes: the commit is being written.
    WalGrowth(u64),
}

/// Run `args` and kill -9 it at `trigger`; true if it was still running.
fn kill_during(args: &[&str], db: &str, input: Vec<u8>, trigger: Trigger) -> bool {
    let wal = format!("{db}-wal");
    let wal_size = || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    let wal_before = wal_size();
    let mut child = spawn(engram_bin!(), args, db, input);
    let started = Instant::now();
    loop {
        if child.try_wait().expect("poll").is_some() {
            return false;
        }
        let fire = match trigger {
            Trigger::After(d) => started.elapsed() >= d,
            Trigger::WalGrowth(n) => wal_size() > wal_before + n,
        };
        if fire || started.elapsed() > Duration::from_secs(120) {
            child.kill().expect("SIGKILL");
            let status = child.wait().expect("reap");
            // Killed by the signal, not exited by itself in the meantime.
            return std::os::unix::process::ExitStatusExt::signal(&status) == Some(9);
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// kill -9 `args` at several points; each time the store holds either the
/// state before or the state after a complete run, and works afterwards.
fn all_or_nothing_under_kill(name: &str, args: &[&str], input: impl Fn() -> Vec<u8>) {
    let reference = seeded(&format!("{name}-reference"));
    let before = counts(&reference);
    let t = Instant::now();
    run_ok(args, &reference, input());
    let full = t.elapsed();
    let after = counts(&reference);
    assert_ne!(before, after, "the reference run wrote nothing");
    let triggers = [
        Trigger::WalGrowth(32 << 10),
        Trigger::After(full.mul_f64(0.3)),
        Trigger::After(full.mul_f64(0.6)),
        Trigger::WalGrowth(1 << 20),
    ];
    let mut interrupted = 0;
    for (trial, trigger) in triggers.into_iter().enumerate() {
        let db = seeded(&format!("{name}-{trial}"));
        let killed = kill_during(args, &db, input(), trigger);
        interrupted += killed as usize;
        assert_eq!(integrity(&db), "ok", "trial {trial} ({trigger:?})");
        let now = counts(&db);
        assert!(
            now == before || now == after,
            "trial {trial} ({trigger:?}, killed: {killed}): half-written: {now:?}, expected {before:?} or {after:?}"
        );
        // Usable afterwards: a small write lands.
        run_ok(
            &["import"],
            &db,
            import_lines(&format!("{name}-{trial}-after"), 1),
        );
        assert_eq!(integrity(&db), "ok");
        eprintln!(
            "{name} trial {trial} ({trigger:?}): killed mid-run: {killed}, rolled back: {}",
            now == before
        );
    }
    eprintln!("{name}: a full run takes {:.2} s", full.as_secs_f64());
    assert!(
        interrupted >= 2,
        "only {interrupted} of 4 kills landed mid-run (a full run takes {full:?})"
    );
}

#[test]
fn kill_9_during_a_large_import_leaves_all_or_nothing() {
    all_or_nothing_under_kill("kill-import", &["import"], || import_lines("bulk", 20_000));
}

#[test]
fn kill_9_during_a_large_remember_leaves_all_or_nothing() {
    all_or_nothing_under_kill("kill-remember", &["remember"], || {
        remember_lines("bulk", "u", 3_000)
    });
}

/// A reader's view: stored memories per batch tag (source ref).
fn batches_seen(list_output: &str) -> std::collections::BTreeMap<String, usize> {
    let mut seen = std::collections::BTreeMap::new();
    for m in json_lines(list_output) {
        let tag = m["source"]["ref"].as_str().unwrap_or("").to_string();
        *seen.entry(tag).or_insert(0) += 1;
    }
    seen
}

#[test]
fn concurrent_writers_lose_nothing_and_readers_never_see_half_a_commit() {
    const WRITERS: usize = 4;
    const BATCHES: usize = 3;
    const ITEMS: usize = 40;
    let db = seeded("concurrent");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (db, done) = (db.clone(), done.clone());
            std::thread::spawn(move || {
                let mut views = Vec::new();
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    let out = run_ok(&["list", "--tenant", "t"], &db, Vec::new());
                    views.push(batches_seen(&out));
                }
                views
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut outputs = Vec::new();
                for b in 0..BATCHES {
                    let tag = format!("w{w}-b{b}");
                    let (cmd, input) = if b % 2 == 0 {
                        ("import", import_lines(&tag, ITEMS))
                    } else {
                        ("remember", remember_lines(&tag, &format!("w{w}"), ITEMS))
                    };
                    outputs.push((tag, cmd, run_ok(&[cmd], &db, input)));
                }
                outputs
            })
        })
        .collect();
    let outputs: Vec<(String, &str, String)> = writers
        .into_iter()
        .flat_map(|h| h.join().expect("writer"))
        .collect();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let views: Vec<_> = readers
        .into_iter()
        .flat_map(|h| h.join().expect("reader"))
        .collect();

    assert_eq!(integrity(&db), "ok");
    let final_view = batches_seen(&run_ok(&["list", "--tenant", "t"], &db, Vec::new()));
    // Every decision and receipt is accounted for: its memory is stored.
    let mut stored_ids = std::collections::BTreeSet::new();
    for (tag, cmd, out) in &outputs {
        let lines = json_lines(out);
        assert_eq!(lines.len(), ITEMS, "{tag}: one answer per input line");
        let ids: Vec<String> = lines
            .iter()
            .filter_map(|l| {
                let key = if *cmd == "import" { "id" } else { "memory_id" };
                l[key].as_str().map(String::from)
            })
            .collect();
        assert!(!ids.is_empty(), "{tag}: nothing stored");
        assert_eq!(
            final_view.get(tag).copied().unwrap_or(0),
            ids.len(),
            "{tag}: stored per the answers vs found"
        );
        for id in ids {
            let history = run_ok(&["history", "--id", &id], &db, Vec::new());
            assert!(
                !history.trim().is_empty(),
                "{tag}: {id} was answered but is missing"
            );
            stored_ids.insert(id);
        }
    }
    // No reader ever saw part of a batch.
    assert!(views.len() >= 2, "the readers ran {} times", views.len());
    for view in &views {
        for (tag, n) in view {
            let full = final_view.get(tag).copied().unwrap_or(0);
            assert!(*n == full, "a reader saw {n} of {full} memories of {tag}");
        }
    }
    eprintln!(
        "{} writer runs, {} memories, {} reader views",
        outputs.len(),
        stored_ids.len(),
        views.len()
    );
}

#[test]
fn a_locked_database_fails_clearly_after_the_busy_timeout() {
    let db = seeded("busy");
    let before = dump(&db);
    let holder = rusqlite::Connection::open(&db).expect("open");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("take the write lock");
    let t = Instant::now();
    let out = run(
        engram_bin!(),
        &["remember", "--busy-timeout-ms", "400"],
        &db,
        remember_lines("busy", "u", 2),
    );
    let waited = t.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_secs(15),
        "gave up after {waited:?}"
    );
    for needle in [db.as_str(), "locked", "400 ms", "--busy-timeout-ms"] {
        assert!(stderr.contains(needle), "no {needle:?} in: {stderr}");
    }
    // Readers are not blocked by a writer (WAL).
    let t = Instant::now();
    run_ok(&["list", "--tenant", "t"], &db, Vec::new());
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "a reader waited {:?}",
        t.elapsed()
    );
    holder.execute_batch("ROLLBACK").expect("release");
    drop(holder);
    assert!(dump(&db) == before, "the refused call wrote");
    run_ok(&["remember"], &db, remember_lines("busy", "u", 2));
}

/// A command whose files may not grow past `bytes` (RLIMIT_FSIZE): the
/// kernel refuses the write that would, as on a full disk.
fn with_file_size_limit(bytes: u64) -> Command {
    let mut cmd = engram_bin!();
    // SAFETY: between fork and exec only async-signal-safe calls (signal,
    // setrlimit) are made.
    unsafe {
        cmd.pre_exec(move || {
            // Refused writes then fail with EFBIG instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

#[test]
fn a_full_disk_fails_clearly_and_writes_nothing() {
    let db = seeded("disk-full");
    let before = dump(&db);
    let size = std::fs::metadata(&db).expect("db").len();
    let out = run(
        with_file_size_limit(size.max(64 << 10) + (256 << 10)),
        &["import"],
        &db,
        import_lines("full", 5_000),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(db.as_str()),
        "the error names the file: {stderr}"
    );
    assert!(
        stderr.contains("full") || stderr.contains("I/O"),
        "the error says why: {stderr}"
    );
    assert_eq!(integrity(&db), "ok");
    assert!(dump(&db) == before, "half-written after a full disk");
    run_ok(&["import"], &db, import_lines("after-full", 5));
}

/// Where the current user's file permissions bind. Root ignores them, so
/// as root the CLI runs as `nobody` over files it owns.
struct Unprivileged {
    uid: Option<u32>,
}

impl Unprivileged {
    fn new() -> Self {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        Unprivileged {
            uid: root.then_some(65534),
        }
    }
    fn own(&self, path: &str) {
        if let Some(uid) = self.uid {
            std::os::unix::fs::chown(path, Some(uid), Some(uid)).expect("chown");
        }
    }
    fn command(&self) -> Command {
        let mut cmd = engram_bin!();
        if let Some(uid) = self.uid {
            cmd.uid(uid).gid(uid);
        }
        cmd
    }
}

fn chmod(path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// A database in a directory of its own, owned by whoever runs the CLI.
fn private_db(who: &Unprivileged, name: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("engram-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let dir = dir.display().to_string();
    let db = format!("{dir}/memory.db");
    run_ok(&["import"], &db, import_lines(name, 3));
    for p in [&dir, &db] {
        who.own(p);
    }
    (dir, db)
}

/// With `lock` applied, a `remember` fails with a clear error naming the
/// file, and (judged once `unlock` is applied) wrote nothing.
fn assert_refused_cleanly(
    who: &Unprivileged,
    db: &str,
    what: &str,
    lock: impl Fn(),
    unlock: impl Fn(),
) {
    let before = dump(db);
    lock();
    let out = run(
        who.command(),
        &["remember"],
        db,
        remember_lines(what, "u", 3),
    );
    unlock();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(stderr.starts_with("engram: "), "{what}: {stderr}");
    assert!(
        stderr.contains(db),
        "{what}: the error names the file: {stderr}"
    );
    assert!(
        stderr.contains("read-only") || stderr.contains("cannot be opened"),
        "{what}: the error says why: {stderr}"
    );
    assert_eq!(integrity(db), "ok", "{what}");
    assert!(dump(db) == before, "{what}: half-written");
}

#[test]
fn a_read_only_file_or_directory_fails_clearly_and_writes_nothing() {
    let who = Unprivileged::new();
    let (dir, db) = private_db(&who, "ro-file");
    assert_refused_cleanly(
        &who,
        &db,
        "read-only file",
        || chmod(&db, 0o444),
        || chmod(&db, 0o644),
    );
    let (dir2, db2) = private_db(&who, "ro-dir");
    assert_refused_cleanly(
        &who,
        &db2,
        "read-only directory",
        || chmod(&dir2, 0o555),
        || chmod(&dir2, 0o755),
    );
    // Writable again, it works.
    run_ok(&["remember"], &db2, remember_lines("after-ro", "u", 1));
    for d in [dir, dir2] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A read-only file or directory is still read (issue 32, item 4): recall
/// answers, says once that usage counts are not recorded, and neither the
/// file nor the directory changes (no `-wal`/`-shm` is created).
#[test]
fn a_read_only_file_or_directory_is_still_read() {
    let who = Unprivileged::new();
    let query = br#"{"query":"nightly job on host-1","scope":{"tenant":"t","user":"u"}}"#;
    for (name, lock, unlock) in [
        ("ro-read-file", 0o444u32, 0o644u32),
        ("ro-read-dir", 0o555, 0o755),
    ] {
        let (dir, db) = private_db(&who, name);
        let target = if name.ends_with("dir") { &dir } else { &db };
        let listing = |d: &str| {
            let mut names: Vec<String> = std::fs::read_dir(d)
                .expect("dir")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let (bytes, files) = (std::fs::read(&db).expect("db"), listing(&dir));
        chmod(target, lock);
        let out = run(who.command(), &["recall"], &db, query.to_vec());
        let list = run(who.command(), &["list", "--tenant", "t"], &db, Vec::new());
        chmod(target, unlock);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("{name} event 1:")),
            "{name}: {stdout}"
        );
        assert_eq!(
            stderr.trim(),
            format!("engram: {db} is read-only: usage counts not recorded"),
            "{name}"
        );
        assert!(
            list.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&list.stderr)
        );
        assert_eq!(json_lines(&String::from_utf8_lossy(&list.stdout)).len(), 3);
        assert!(std::fs::read(&db).expect("db") == bytes, "{name}: written");
        assert_eq!(listing(&dir), files, "{name}: files created");
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// `engram serve` and `engram mcp` on a database they may not write (here
/// a 0444 file, which binds root too) serve its reads and refuse its
/// writes, naming the file; the file does not change (issue 32, item 4).
#[test]
fn serve_and_mcp_read_a_read_only_database() {
    use engram_tests::deployment::{add_key, Deployment, Http, Mcp};
    use serde_json::json;
    let d = Deployment::sqlite("ro-serve", env!("CARGO_BIN_EXE_engram-cli"), NOW);
    let db = d.url().to_string();
    d.cli(
        &["remember"],
        r#"{"text":"以后请叫我林工","scope":{"tenant":"acme","user":"u42"},"source":{"kind":"user","ref":"e1"}}"#,
    )
    .expect("remember");
    let keys = format!("{db}.keys");
    let _ = std::fs::remove_file(&keys);
    let key = add_key(&d, &keys, "acme", Some("u42"));
    let bytes = std::fs::read(&db).expect("db");
    chmod(&db, 0o444);

    let http = Http::start(&d, &keys);
    let (status, body) = http.call(
        "POST",
        "/v1/recall",
        &key,
        Some(&json!([{"query": "怎么称呼我？", "scope": {"tenant": "acme", "user": "u42"}}])),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("以后请叫我林工"), "{body}");
    let (status, body) = http.call(
        "POST",
        "/v1/remember",
        &key,
        Some(
            &json!([{"text": "以后请叫我王工", "scope": {"tenant": "acme", "user": "u42"},
                      "source": {"kind": "user", "ref": "e2"}}]),
        ),
    );
    assert!(status >= 400, "a write was accepted: {status} {body}");
    assert!(body.contains("read-only"), "{body}");
    drop(http);

    let mut mcp = Mcp::start(&d, "acme", Some("u42"));
    let (failed, answer) = mcp.tool("recall", json!({"query": "怎么称呼我？"}));
    assert!(!failed && answer.contains("以后请叫我林工"), "{answer}");
    let (failed, answer) = mcp.tool(
        "remember",
        json!({"text": "以后请叫我王工", "source": {"kind": "user", "ref": "e3"}}),
    );
    assert!(failed && answer.contains("read-only"), "{answer}");
    drop(mcp);

    chmod(&db, 0o644);
    assert!(std::fs::read(&db).expect("db") == bytes, "the file changed");
}
