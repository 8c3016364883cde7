//! Every command's `--help` teaches (issue 32, item 5): it lists only the
//! flags that command takes, each with a description; a command that reads
//! JSON names the fields of its input as the contract does; and every
//! example it shows runs. The examples are read from the real `--help`
//! output of the CLI built by this package and run with bash in an empty
//! directory, `engram` on the PATH; each must exit 0 and print what its
//! command prints (JSON lines, a key, a report).
//!
//! Three examples need a stand-in to run on a test machine, each named
//! where it is made: `serve`'s fixed port becomes a free one (the port
//! may be taken), `mcp` and `serve` are servers (the test talks to them,
//! then stops them), and `vacuum`'s PostgreSQL URL becomes a private
//! server's (`engram_tests::postgres::Cluster`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory;
use serde_json::Value;

/// The path of every command that runs something (no subcommands of its
/// own), below `engram`.
fn leaf_commands() -> Vec<String> {
    fn walk(c: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in c.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let path = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            if sub.get_subcommands().next().is_some() {
                walk(sub, &path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&engram_cli::cli::Cli::command(), "", &mut out);
    out
}

fn cache_dir() -> PathBuf {
    std::env::temp_dir().join("engram-tests-cache")
}

/// `engram <path> --help`, from the built CLI.
fn help(path: &str) -> String {
    let out = engram_tests::engram_bin!()
        .args(path.split(' '))
        .arg("--help")
        .output()
        .expect("run engram --help");
    assert!(out.status.success(), "engram {path} --help failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The example commands of a help text: the lines indented under
/// `Examples:`, `\` continuations joined, `#` comments left out.
fn examples(help: &str) -> Vec<String> {
    let after = help
        .split_once("\nExamples:\n")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("no Examples: section in\n{help}"));
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in after.lines() {
        let Some(text) = line.strip_prefix("  ") else {
            break;
        };
        let text = text.trim_end();
        if text.starts_with('#') || text.is_empty() {
            continue;
        }
        match text.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(text);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    assert!(out.iter().all(|c| c.contains("engram ")), "{out:?}");
    out
}

/// An empty directory, and a PATH whose `engram` is the CLI under test.
fn workdir(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "engram-help-{}-{}",
        name.replace(' ', "-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = dir.join(".bin");
    std::fs::create_dir_all(&bin).expect("temp dir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_engram-cli"), bin.join("engram"))
        .expect("symlink engram");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (dir, path)
}

fn shell(dir: &Path, path: &str, command: &str) -> Command {
    let mut c = Command::new("bash");
    c.args(["-euo", "pipefail", "-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("ENGRAM_CACHE_DIR", cache_dir());
    c
}

/// Run one example; its stdout, after checking it exited 0.
fn run(dir: &Path, path: &str, command: &str) -> String {
    let out = shell(dir, path, command).output().expect("run bash");
    assert!(
        out.status.success(),
        "the example\n  {command}\nexited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// What the last example of command `path` must print, beside exiting 0.
fn check_output(path: &str, command: &str, out: &str) {
    let json_lines = || -> Vec<Value> {
        assert!(!out.trim().is_empty(), "`{command}` printed nothing");
        out.lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap_or_else(|e| {
                    panic!("`{command}` printed a line that is not JSON ({e}): {l}")
                })
            })
            .collect()
    };
    let has = |needle: &str| {
        assert!(
            out.contains(needle),
            "`{command}` should print {needle}:\n{out}"
        )
    };
    match path {
        "info" => {
            let v: Value = serde_json::from_str(out.trim())
                .unwrap_or_else(|e| panic!("`{command}`: not one JSON object ({e}):\n{out}"));
            assert!(v.is_object(), "{out}");
        }
        "demo" => has("Done. Every step above ran inside the sandboxed component"),
        "keys add" => {
            let key = out.trim();
            assert!(
                key.len() == 67
                    && key.starts_with("ek_")
                    && key[3..].bytes().all(|b| b.is_ascii_hexdigit()),
                "keys add prints the key: {out}"
            );
        }
        _ => {
            let lines = json_lines();
            for v in &lines {
                assert!(v.get("error").is_none(), "`{command}`: {v}");
            }
            match path {
                "classify" => has(r#""disposition":"rejected""#),
                "remember" => has(r#""disposition":"active""#),
                "import" => has(r#""external_id":"crm-7""#),
                "recall" => has("以后请叫我林工"),
                "pack" => has("以后请叫我林工"),
                "forget" => {
                    let erased = |k: &str| lines[0][k].as_array().map_or(0, Vec::len);
                    assert!(
                        erased("deleted") + erased("cascaded") > 0,
                        "forget by source event erased the memory: {out}"
                    )
                }
                "sweep" => assert!(lines.len() == 1 && lines[0].is_object(), "{out}"),
                "review" => has(r#""verdict":"approve""#),
                "operations record" => has(r#""action":"created""#),
                "operations get" => has(r#""found":true"#),
                "history" | "list" => has("以后请叫我林工"),
                "keys list" => {
                    has(r#""label":"ci-bot""#);
                    assert!(!out.contains("ek_"), "keys list never prints a key");
                }
                "keys revoke" => has(r#""revoked":"#),
                other => panic!("no output check for `engram {other}`: add one"),
            }
        }
    }
}

/// Run every example of command `path` in an empty directory, in order;
/// check the last one's output.
fn run_examples(path: &str) {
    let text = help(path);
    let commands = examples(&text);
    let (dir, bin_path) = workdir(path);
    let mut last = String::new();
    for c in &commands {
        last = run(&dir, &bin_path, c);
    }
    let final_command = commands.last().expect("at least one example");
    check_output(path, final_command, &last);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Commands whose examples the test cannot run as plain commands, each
/// with its own test below.
const SPECIAL: &[&str] = &["serve", "mcp", "vacuum"];

#[test]
fn every_command_has_help_with_described_flags_and_examples() {
    let tree = engram_cli::cli::Cli::command();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../contract/schema/engram-contract.schema.json"
        ))
        .expect("the contract's schema"),
    )
    .expect("JSON schema");
    fn input_of(path: &str) -> Option<&str> {
        match path {
            "operations record" => Some("record-operations"),
            "operations get" => Some("get-operations"),
            "classify" | "remember" | "import" | "recall" | "pack" | "forget" | "review" => {
                Some(path)
            }
            _ => None,
        }
    }
    for path in leaf_commands() {
        let mut c = &tree;
        for part in path.split(' ') {
            c = c.find_subcommand(part).expect("the command exists");
        }
        for arg in c.get_arguments() {
            let id = arg.get_id().as_str();
            assert!(!arg.is_global_set(), "engram {path}: --{id} is global");
            if id == "help" || id == "version" {
                continue;
            }
            assert!(
                arg.get_help()
                    .is_some_and(|h| !h.to_string().trim().is_empty()),
                "engram {path}: {id} has no description"
            );
        }
        let text = help(&path);
        assert!(
            c.get_long_about().is_some() || c.get_about().is_some(),
            "engram {path} has no description"
        );
        examples(&text);
        if let Some(op) = input_of(&path) {
            let input = text
                .split_once("\nInput: ")
                .unwrap_or_else(|| panic!("engram {path} --help has no Input: section\n{text}"))
                .1;
            let mut item = &schema["operations"][op]["input"]["item"];
            if let Some(r) = item.get("$ref").and_then(Value::as_str) {
                item = schema.pointer(r.trim_start_matches('#')).expect("ref");
            }
            let required: Vec<&str> = item["required"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let props = item["properties"].as_object().expect("properties");
            for name in props.keys() {
                let listed = input.lines().any(|l| {
                    let f = l.trim_start();
                    f.starts_with(&format!("{name} "))
                        || f.starts_with(&format!("{name}."))
                        || f.starts_with(&format!("{name}[]"))
                        || f == name
                });
                assert!(
                    listed,
                    "engram {path} --help does not list `{name}`:\n{input}"
                );
            }
            let required_part = input.split("Optional fields:").next().unwrap_or("");
            for name in required {
                assert!(
                    required_part
                        .lines()
                        .any(|l| l.trim_start().starts_with(name)),
                    "engram {path} --help does not list `{name}` as required:\n{input}"
                );
            }
        }
    }
    // Flags a command does not use are not offered to it.
    for (path, absent) in [
        (
            "keys list",
            &["--db", "--tenant", "--timeout-secs", "--now"][..],
        ),
        ("keys revoke", &["--db", "--tenant", "--component"][..]),
        ("keys add", &["--db", "--durability", "--component"][..]),
        ("info", &["--db", "--tenant", "--now", "--durability"][..]),
        ("demo", &["--db", "--tenant", "--busy-timeout-ms"][..]),
        ("serve", &["--tenant", "--user", "--project"][..]),
        ("vacuum", &["--tenant", "--component", "--durability"][..]),
    ] {
        let full = help(path);
        // The flags listed (the examples may run other commands).
        let text = full.split("\nExamples:").next().unwrap_or("");
        for flag in absent {
            assert!(
                !text.contains(flag),
                "engram {path} --help offers {flag}, which it does not use:\n{text}"
            );
        }
    }
    // `history --id` says what the id is (issue 32: it said nothing).
    let history = help("history");
    let at = history
        .split_once("--id <MEMORY_ID>")
        .expect("history --id")
        .1;
    let described = at.split("\n  -").next().unwrap_or("");
    assert!(described.contains("revisions"), "{history}");
}

#[test]
fn every_plain_example_runs_and_prints_what_its_command_prints() {
    let paths: Vec<String> = leaf_commands()
        .into_iter()
        .filter(|p| !SPECIAL.contains(&p.as_str()))
        .collect();
    assert!(paths.len() >= 15, "{paths:?}");
    for path in paths {
        run_examples(&path);
    }
}

/// The example's server line, with its fixed port made a free one.
fn server_line(commands: &[String], name: &str) -> String {
    let line = commands
        .iter()
        .find(|c| c.starts_with(&format!("engram {name} ")))
        .unwrap_or_else(|| panic!("no `engram {name}` example in {commands:?}"));
    line.replace("127.0.0.1:8077", "127.0.0.1:0")
}

#[test]
fn the_serve_example_serves_with_the_key_its_example_made() {
    let commands = examples(&help("serve"));
    let (dir, bin_path) = workdir("serve");
    let mut key = String::new();
    for c in commands.iter().filter(|c| !c.starts_with("engram serve ")) {
        key = run(&dir, &bin_path, c).trim().to_string();
    }
    assert!(key.starts_with("ek_"), "the example made a key: {key}");
    let line = server_line(&commands, "serve");
    let mut child = shell(&dir, &bin_path, &format!("exec {line}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the serve example");
    let base = engram_tests::deployment::listening(&mut child);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let info = agent
        .get(format!("{base}/v1/info"))
        .header("Authorization", format!("Bearer {key}"))
        .call()
        .expect("GET /v1/info");
    assert_eq!(info.status().as_u16(), 200);
    let none = agent
        .get(format!("{base}/v1/info"))
        .call()
        .expect("GET /v1/info");
    assert_eq!(none.status().as_u16(), 401);
    // SAFETY: kill(2) on our own child, with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().expect("serve stops");
    assert!(status.success(), "serve stopped on SIGTERM: {status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_mcp_example_answers_an_mcp_client() {
    let commands = examples(&help("mcp"));
    let (dir, bin_path) = workdir("mcp");
    let line = server_line(&commands, "mcp");
    let mut child = shell(&dir, &bin_path, &format!("exec {line}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the mcp example");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").expect("write to the server");
        stdin.flush().expect("flush");
    };
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "engram-help-test", "version": "0"}}}),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut read = |id: u64| -> Value {
        loop {
            assert!(Instant::now() < deadline, "no answer to request {id}");
            let line = lines
                .next()
                .expect("the server answers")
                .expect("read stdout");
            let v: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if v["id"] == id {
                return v;
            }
        }
    };
    let init = read(1);
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let tools = read(2);
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        names.contains(&"remember") && names.contains(&"recall"),
        "{tools}"
    );
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_vacuum_example_runs_on_a_postgres_server() {
    let commands = examples(&help("vacuum"));
    let cluster = engram_tests::postgres::Cluster::start();
    let url = cluster.create_database("help_vacuum");
    let (dir, bin_path) = workdir("vacuum");
    let mut last = String::new();
    let example_url = "postgres://engram@localhost:5432/engram";
    assert!(
        commands.iter().any(|c| c.contains(example_url)),
        "{commands:?}"
    );
    for c in &commands {
        // The example's server URL, made this test's own server's.
        let c = c.replace(example_url, &url);
        last = run(&dir, &bin_path, &c);
    }
    let v: Value = serde_json::from_str(last.trim()).expect("one JSON report");
    assert!(v["bytes_after"].is_number(), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
