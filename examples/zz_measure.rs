use memreuse::ir::*;
use memreuse::plan::*;
use memreuse::synth::*;
use memreuse::verify::*;
use std::time::Instant;
fn main() {
    let tiles: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(100);
    let mut texts = vec![];
    for seed in 0..50u64 {
        texts.push(program_text("P", &SynthConfig { functions: 20, tiles_per_function: tiles, seed, ..Default::default() }));
    }
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let t = Instant::now();
    let progs: Vec<Program> = texts.iter().map(|t| parse_program(t).unwrap()).collect();
    let parse = t.elapsed();
    let t = Instant::now();
    let mut n = 0;
    for p in &progs { for f in &p.functions { n += canonical_function_bytes(f).len(); } }
    let print = t.elapsed();
    let t = Instant::now();
    let mut plans = vec![];
    let mut fails = 0;
    for p in &progs { for f in &p.functions { match plan_function(f, &PlanConfig::default()) { Ok(pl) => plans.push(pl), Err(_) => fails += 1 } } }
    let plan = t.elapsed();
    let t = Instant::now();
    let mut bad = 0;
    for pl in &plans { if !verify_function(&pl.function, &VerifyOptions::default()).is_empty() { bad += 1; } }
    let ver = t.elapsed();
    let t = Instant::now();
    for t in &texts { let _ = blake3::hash(t.as_bytes()); }
    let hash = t.elapsed();
    let nf: usize = progs.iter().map(|p| p.functions.len()).sum();
    println!("fns {nf} bytes {bytes} ({n}) parse {parse:?} print {print:?} plan {plan:?} verify {ver:?} hash {hash:?} fails {fails} bad {bad}");
}
