//! The README's command examples, executed: every line of a fenced block that starts with `$ `
//! is run by bash in a scratch folder that sees the repository's `puzzles/` and `pipelines/`
//! (and no `outputs/`, so answers do not depend on what a developer built), with this build's
//! `huarong` first on the PATH; what it prints (stdout and stderr, in order) must be the lines
//! that follow it in the block, up to the next `$ ` line or the block's end. So the examples
//! cannot drift from what the binary does.

mod common;

use std::process::Command;

/// One example: the line it starts at, the command, and the output the README shows.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    expected: String,
}

/// Every `$ ` example of the fenced blocks of `text`.
fn examples(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    let mut current: Option<Example> = None;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
            out.extend(current.take());
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some(Example {
                line: i + 1,
                command: command.to_owned(),
                expected: String::new(),
            });
        } else if let Some(e) = &mut current {
            e.expected.push_str(line);
            e.expected.push('\n');
        }
    }
    out
}

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let root = common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let found = examples(&readme);
    assert!(found.len() >= 8, "{found:?}");
    let scratch = tempfile::tempdir().unwrap();
    for dir in ["puzzles", "pipelines"] {
        std::os::unix::fs::symlink(
            root.join(dir).canonicalize().unwrap(),
            scratch.path().join(dir),
        )
        .unwrap();
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_huarong"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for e in &found {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!("exec 2>&1\n{}", e.command))
            .current_dir(scratch.path())
            .env("PATH", &path)
            .env_remove("COLUMNS")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&o.stdout);
        // `head -c N` cuts the last line short; the README then shows it without the newline.
        if got.trim_end() != e.expected.trim_end() {
            failures.push(format!(
                "README.md:{}: $ {}\n--- README shows:\n{}--- it prints:\n{}",
                e.line, e.command, e.expected, got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn examples_are_read_from_fenced_blocks_only() {
    let text = "$ not in a block\n```sh\n$ echo a\na\n$ echo b | cat\nb\nc\n```\n\
                after\n```text\nno command\n```\n";
    let e = examples(text);
    assert_eq!(e.len(), 2);
    assert_eq!(
        (e[0].line, e[0].command.as_str(), e[0].expected.as_str()),
        (3, "echo a", "a\n")
    );
    assert_eq!(
        (e[1].command.as_str(), e[1].expected.as_str()),
        ("echo b | cat", "b\nc\n")
    );
}
