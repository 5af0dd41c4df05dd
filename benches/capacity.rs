//! Capacity-driven planning speed (rules §6.6–§6.8): one generated 910B InCore function of
//! 10,000 tiles whose L0B (Right) operands belong to 8 pipeline groups of 4 stages, next to 7
//! untagged Right tiles that stay live across the whole function. The gated packing needs
//! 7 + 4 buffers of 8 KiB (90112 B > 65536 B), so the shed loop lowers every group from F = 4
//! to F = 1 (24 sheds, 25 packings of the Right space) before the space fits exactly; each
//! group then gets its PH-MR-001 hint. Parsing is outside the measurement.

use std::fmt::Write;

use criterion::{Criterion, criterion_group, criterion_main};
use memreuse::backend::Backend;
use memreuse::ir::{Function, MemSpace, parse_program};
use memreuse::plan::{PlanConfig, PlanOptions, plan_function};

const TILES: usize = 10_000;
const GROUPS: usize = 8;
const STAGES: usize = 4;
const BLOCKERS: usize = 7;

/// Post-InitMemRef text of the kernel (rules §3: one counter for every MemRef, allocs first).
struct Gen {
    next_memref: usize,
    allocs: String,
    body: String,
    tiles: usize,
}

impl Gen {
    fn tile(&mut self, name: &str, ty: (&str, &str, &str, usize), rhs: &str) {
        let (shape, dtype, space, size) = ty;
        let base = format!("mem_{}_{}", space.to_lowercase(), self.next_memref);
        self.next_memref += 1;
        let _ = writeln!(
            self.allocs,
            "        {base}: pl.Ptr = pl.tile.alloc(pl.Mem.{space}, {size})"
        );
        let _ = writeln!(
            self.body,
            "        {name}: pl.Tile[{shape}, pl.{dtype}, pl.MemRef({base}, pl.const(0, pl.INT64), {size}), pl.Mem.{space}] = {rhs}"
        );
        self.tiles += 1;
    }

    fn store(&mut self, index: usize, tile: &str, into: &str) -> String {
        let name = format!("out_{index}");
        let _ = writeln!(
            self.body,
            "        {name}: pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_2\", pl.const(0, pl.INT64), 4096)] = pl.tile.store({tile}, [0, 0], {into})"
        );
        name
    }
}

const LHS_MAT: (&str, &str, &str, usize) = ("[16, 64]", "BF16", "Mat", 2048);
const LHS: (&str, &str, &str, usize) = ("[16, 64]", "BF16", "Left", 2048);
const RHS_MAT: (&str, &str, &str, usize) = ("[64, 64]", "BF16", "Mat", 8192);
const RHS: (&str, &str, &str, usize) = ("[64, 64]", "BF16", "Right", 8192);
const ACC: (&str, &str, &str, usize) = ("[16, 64]", "FP32", "Acc", 4096);

fn program_text() -> String {
    let mut g = Gen {
        next_memref: 3,
        allocs: String::new(),
        body: String::new(),
        tiles: 0,
    };
    let load = |src: &str, shape: &str, space: &str| {
        format!(
            "pl.tile.load({src}, [0, 0], {shape}, {shape}, target_memory=pl.Mem.{space}, transpose=False)"
        )
    };
    g.tile("am", LHS_MAT, &load("a", "[16, 64]", "Mat"));
    g.tile("lt", LHS, "pl.tile.move(am, target_memory=pl.Mem.Left)");
    for k in 0..BLOCKERS {
        g.tile(&format!("npm_{k}"), RHS_MAT, &load("b", "[64, 64]", "Mat"));
        g.tile(
            &format!("np_{k}"),
            RHS,
            &format!("pl.tile.move(npm_{k}, target_memory=pl.Mem.Right)"),
        );
    }
    let mut out = "out".to_string();
    let mut stores = 0;
    let mut round = 0;
    while g.tiles + BLOCKERS < TILES {
        for group in 0..GROUPS {
            let unit = round * GROUPS + group;
            let stage = round % STAGES;
            g.tile(
                &format!("bm_{unit}"),
                RHS_MAT,
                &load("b", "[64, 64]", "Mat"),
            );
            g.tile(
                &format!("r_{unit}"),
                RHS,
                &format!(
                    "pl.tile.move(bm_{unit}, target_memory=pl.Mem.Right, attrs={{\"pipeline_membership\": \"{group}:{stage}\"}})"
                ),
            );
            g.tile(
                &format!("m_{unit}"),
                ACC,
                &format!("pl.tile.matmul(lt, r_{unit})"),
            );
            stores += 1;
            out = g.store(stores, &format!("m_{unit}"), &out);
        }
        round += 1;
    }
    for k in 0..BLOCKERS {
        g.tile(
            &format!("mn_{k}"),
            ACC,
            &format!("pl.tile.matmul(lt, np_{k})"),
        );
        stores += 1;
        out = g.store(stores, &format!("mn_{k}"), &out);
    }
    format!(
        "import pypto.language as pl\n\n@pl.program\nclass Bench:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, a: pl.Tensor[[16, 64], pl.BF16, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 2048)], b: pl.Tensor[[64, 64], pl.BF16, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 8192)], out: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef(\"mem_ddr_2\", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:\n{}{}        return {out}\n",
        g.allocs, g.body
    )
}

fn kernel() -> Function {
    let program = parse_program(&program_text()).expect("the generated kernel parses");
    program.functions.into_iter().next().expect("one kernel")
}

fn bench_capacity(c: &mut Criterion) {
    let f = kernel();
    let config = PlanConfig {
        backend: Backend::Ascend910B,
        ..PlanConfig::default()
    };
    // The workload is what it claims to be: every group was shed to depth 1, no fallback.
    let plan = plan_function(&f, &config, &PlanOptions::default()).expect("plans");
    let report = &plan.report;
    let hints = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "PH-MR-001")
        .count();
    assert_eq!(
        hints, GROUPS,
        "every group is shed: {:?}",
        report.diagnostics
    );
    assert!(report.diagnostics.iter().all(|d| d.code != "MR-W001"));
    let right = report
        .spaces
        .iter()
        .find(|s| s.space == MemSpace::Right)
        .expect("Right is planned");
    assert_eq!(right.footprint, 65_536);
    let planned: usize = report.spaces.iter().map(|s| s.tiles).sum();
    assert!(
        (TILES..TILES + 3 * GROUPS).contains(&planned),
        "{planned} tiles"
    );

    let mut group = c.benchmark_group("capacity");
    group.sample_size(20);
    group.bench_function("plan_10000_tiles_8_groups_910b", |b| {
        b.iter(|| plan_function(&f, &config, &PlanOptions::default()).expect("plans"))
    });
    group.finish();
}

criterion_group!(benches, bench_capacity);
criterion_main!(benches);
