//! End-to-end tests of `memreuse solve` on the built binary.

use std::path::Path;
use std::process::{Command, Output};

fn memreuse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memreuse"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const EXAMPLE: &str = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

#[test]
fn prints_a_table_with_peak_and_bound() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "example.csv", EXAMPLE);
    let output = memreuse(&["solve", &file]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for column in [
        "file",
        "buffers",
        "lower bound",
        "peak",
        "peak/bound",
        "time",
    ] {
        assert!(lines[0].contains(column), "{stdout}");
    }
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(&row[..5], [file.as_str(), "5", "12", "12", "1.0000"]);
}

#[test]
fn json_lists_offsets_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "example.csv", EXAMPLE);
    let output = memreuse(&[
        "solve",
        "--json",
        "--planner",
        "ffd",
        "--deadline-ms",
        "50",
        &file,
    ]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(value["file"], file.as_str());
    assert_eq!(value["buffers"], 5);
    assert_eq!(value["lower_bound"], 12);
    assert_eq!(value["peak"], 12);
    assert!(value["time_ms"].is_number());
    let offsets = value["offsets"].as_object().unwrap();
    let ids: Vec<&str> = offsets.keys().map(String::as_str).collect();
    assert_eq!(ids, ["b1", "b2", "b3", "b4", "b5"]);
    assert!(
        offsets
            .values()
            .all(|offset| offset.as_u64().unwrap() + 4 <= 12)
    );
}

#[test]
fn invalid_csv_is_located_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "negative.csv",
            "id,lower,upper,size\na,0,2,4\nb,1,3,-8\n",
            ":3: size -8 is negative",
        ),
        (
            "empty.csv",
            "id,lower,upper,size\na,4,4,1\n",
            ":2: upper 4 <= lower 4",
        ),
        (
            "duplicate.csv",
            "id,lower,upper,size\na,0,1,1\na,1,2,1\n",
            ":3: duplicate id `a`",
        ),
        (
            "columns.csv",
            "id,lower,size\na,0,1\n",
            ":1: the header has no `upper` column",
        ),
        (
            "short.csv",
            "id,lower,upper,size\na,0,1\n",
            ":2: expected 4 fields, found 3",
        ),
    ];
    for (name, text, message) in cases {
        let file = write(dir.path(), name, text);
        let output = memreuse(&["solve", &file]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!("error: {file}{message}")),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(memreuse(&["solve"]).status.code(), Some(2));
    assert_eq!(
        memreuse(&["solve", "--planner", "nope", "x.csv"])
            .status
            .code(),
        Some(2)
    );
}
