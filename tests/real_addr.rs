//! `--addresses` addresses a plan as PyPTO's AllocateMemoryAddr does: on real kernels (each
//! case: the dump entering MemoryReuse and AllocateMemoryAddr's output after it), planning the
//! input with addresses gives AllocateMemoryAddr's output byte for byte, with no repair, and the
//! checkers accept it — dynamic slices included, which AllocateMemoryAddr prints at their
//! source's bare address while their bytes follow the slice operands.
//!
//! Runs the full set in `../shared/conformance/real-addr` when it is there (CI has it), else
//! the subset copied into `tests/data/real-addr`, and says which.

use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_program};
use memreuse::plan::PlanConfig;
use memreuse::repair::{is_repair, plan_program_checked, verify_options};
use memreuse::verify::program_violations;
use memreuse_test_support::manifest;

struct Case {
    kernel: String,
    backend: Backend,
    input: PathBuf,
    addressed: PathBuf,
}

fn corpus() -> (PathBuf, Vec<Case>) {
    let (root, rows) = manifest(Path::new(env!("CARGO_MANIFEST_DIR")), "real-addr");
    let cases = rows
        .iter()
        .map(|row| Case {
            kernel: row.cell("kernel").to_string(),
            backend: row.backend(),
            input: root.join(row.cell("before")),
            addressed: root.join(row.cell("addr")),
        })
        .collect();
    (root, cases)
}

fn check(case: &Case) -> Result<(), String> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let input = parse_program(&read(&case.input)?).map_err(|e| format!("input: {e:?}"))?;
    let expected = read(&case.addressed)?;
    let config = PlanConfig {
        backend: case.backend,
        assign_addresses: true,
        ..PlanConfig::default()
    };
    let options = verify_options(&config);
    let (planned, reports) = plan_program_checked(&input, &config, &options)
        .map_err(|(i, e)| format!("{} gets no plan: {e:?}", input.functions[i].name))?;
    let repairs = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .filter(|d| is_repair(d))
        .count();
    if repairs > 0 {
        return Err(format!("{repairs} repairs"));
    }
    let violations = program_violations(&planned, &options);
    if !violations.is_empty() {
        return Err(format!("the checkers reject the plan: {violations:?}"));
    }
    if print_program(&planned) != expected {
        return Err("differs from AllocateMemoryAddr's output".into());
    }
    Ok(())
}

#[test]
fn addresses_are_allocate_memory_addrs_on_real_kernels() {
    let (root, cases) = corpus();
    assert!(!cases.is_empty());
    eprintln!(
        "real-addr: {} programs from {}",
        cases.len(),
        root.display()
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| check(case).err().map(|e| format!("{}: {e}", case.kernel)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} programs fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
