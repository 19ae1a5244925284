//! The documents a user reads, checked against what they describe:
//!
//! - **Examples run.** In `README.md` and `docs/*.md`, every line of a fenced block that starts
//!   with `$ ` is run by bash in a scratch folder that sees the repository's `puzzles/` and
//!   `pipelines/` (and no `outputs/`, so answers do not depend on what a developer built), with
//!   this build's `huarong` first on the PATH; what it prints (stdout and stderr, in order) must
//!   be the lines that follow it in the block, up to the next `$ ` line or the block's end.
//! - **Links resolve.** Every relative link `[text](path)` names a file or folder that exists.
//! - **Figures come from recorded runs.** A block after a line
//!   `<!-- figures: docs/bench/NAME.txt -->` (up to the next blank line) quotes a benchmark's
//!   recorded output (`scripts/bench.sh` writes it, with the date, machine and commit), or one
//!   of several files the marker names: every measurement in it (a number with a decimal point,
//!   or a whole number with a unit of time or size) must appear in one of them. A figure
//!   re-measured replaces the file, and the test fails until the document quotes the new run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One example: the line it starts at, the command, and the output the document shows.
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

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let root = common::root();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

fn name(path: &Path) -> String {
    path.strip_prefix(common::root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_documented_example_prints_what_the_document_shows() {
    let root = common::root();
    let docs = documents();
    let found: Vec<(String, Example)> = docs
        .iter()
        .flat_map(|(p, text)| examples(text).into_iter().map(move |e| (name(p), e)))
        .collect();
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
    for (file, e) in &found {
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
        // `head -c N` cuts the last line short; the document then shows it without the newline.
        if got.trim_end() != e.expected.trim_end() {
            failures.push(format!(
                "{file}:{}: $ {}\n--- the document shows:\n{}--- it prints:\n{}",
                e.line, e.command, e.expected, got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The targets of the inline links `[text](target)` of `text`, with their lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
        }
        if in_block {
            continue;
        }
        let mut rest = line;
        while let Some(k) = rest.find("](") {
            let after = &rest[k + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            out.push((i + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// The anchors of a Markdown file's headings, as GitHub makes them: lower case, spaces to `-`,
/// every other character but letters, digits, `-` and `_` dropped.
fn anchors(text: &str) -> Vec<String> {
    let mut in_block = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        }
        if in_block || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        out.push(
            heading
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect(),
        );
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (path, text) in documents() {
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            count += 1;
            let resolved = path.parent().unwrap().join(file);
            if !resolved.exists() {
                failures.push(format!("{}:{line}: {target} does not exist", name(&path)));
            } else if !anchor.is_empty() {
                let text = std::fs::read_to_string(&resolved).unwrap_or_default();
                if !anchors(&text).iter().any(|a| a == anchor) {
                    failures.push(format!("{}:{line}: no heading {target}", name(&path)));
                }
            }
        }
    }
    assert!(count >= 10, "only {count} relative links found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The measurements of `text` that a recorded run must hold: every number with a decimal point,
/// and every whole number followed by a unit of time or size (`12 s`, `640 MiB`); thousands
/// separators removed. Counts (`37,946,880 positions`) are facts the tests assert elsewhere.
fn figures(text: &str) -> Vec<String> {
    const UNITS: [&str; 12] = [
        "s", "ms", "µs", "min", "h", "GB", "MB", "KB", "GiB", "MiB", "x", "%",
    ];
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // A number starts at a digit not glued to a letter or `_` before it (names such as
        // `h1v4s4`).
        let glued = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if !chars[i].is_ascii_digit() || glued {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut digits = String::new();
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || (chars[j] == ',' && chars.get(j + 1).is_some_and(char::is_ascii_digit))
                || (chars[j] == '.' && chars.get(j + 1).is_some_and(char::is_ascii_digit)))
        {
            if chars[j] != ',' {
                digits.push(chars[j]);
            }
            j += 1;
        }
        let name_like = j < chars.len() && (chars[j].is_alphabetic() || chars[j] == '_');
        let unit: String = chars[j..]
            .iter()
            .skip_while(|c| **c == ' ')
            .take_while(|c| c.is_alphabetic() || **c == '%')
            .collect();
        let measured = digits.contains('.') || UNITS.contains(&unit.as_str());
        let glued_unit = name_like && UNITS.contains(&unit.as_str());
        if (!name_like || glued_unit) && measured {
            out.push(digits);
        }
        i = j.max(i + 1);
    }
    out
}

/// Every number-like token of a recorded file, thousands separators removed.
fn recorded_numbers(text: &str) -> std::collections::HashSet<String> {
    let mut all = std::collections::HashSet::new();
    let mut token = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || c == '.' || c == ',' {
            token.push(c);
        } else {
            let t: String = token
                .trim_matches(|c| c == '.' || c == ',')
                .replace(',', "");
            if !t.is_empty() {
                all.insert(t);
            }
            token.clear();
        }
    }
    all
}

#[test]
fn every_quoted_figure_is_in_its_recorded_run() {
    let root = common::root();
    let mut failures = Vec::new();
    let mut blocks = 0;
    for (path, text) in documents() {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(source) = line
                .trim()
                .strip_prefix("<!-- figures: ")
                .and_then(|l| l.strip_suffix(" -->"))
            else {
                continue;
            };
            blocks += 1;
            let mut numbers = std::collections::HashSet::new();
            for file in source.split_whitespace() {
                match std::fs::read_to_string(root.join(file)) {
                    Ok(recorded) => numbers.extend(recorded_numbers(&recorded)),
                    Err(_) => failures.push(format!("{}:{}: no {file}", name(&path), i + 1)),
                }
            }
            let block: Vec<&str> = lines[i + 1..]
                .iter()
                .skip_while(|l| l.trim().is_empty())
                .take_while(|l| !l.trim().is_empty())
                .copied()
                .collect();
            assert!(
                !block.is_empty(),
                "{}:{}: an empty block",
                name(&path),
                i + 1
            );
            for figure in figures(&block.join("\n")) {
                if !numbers.contains(&figure) {
                    failures.push(format!(
                        "{}:{}: {figure} is not in {source}",
                        name(&path),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(blocks >= 3, "only {blocks} blocks of recorded figures");
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

#[test]
fn figures_are_the_numbers_a_run_must_hold() {
    assert_eq!(
        figures("| main job `-- main` | 1.97 s, 27,103,652,326 layouts, h1v4s4, 3.4x, 640 MiB |"),
        ["1.97", "3.4", "640"]
    );
    assert_eq!(
        figures("rush-hour-6 in 862 s (2026), 12ms, 0.023 of it"),
        ["862", "12", "0.023"]
    );
    let recorded = recorded_numbers("median 1.97 s (1.9, 2.0) 27103652326 layouts; 862.6.");
    for f in ["1.97", "27103652326", "862.6"] {
        assert!(recorded.contains(f), "{f}");
    }
}
