//! Prints a synthetic post-InitMemRef program (see `memreuse_testgen::synth`).
//!
//! `cargo run --example gen_kernel -- --tiles 1200 --seed 5 [--functions 1] [--max-live 8 | --dense]
//! [--straight-line] [--name Synth] > FILE`

use memreuse_testgen::synth::{SynthConfig, program_text};

const USAGE: &str = "usage: gen_kernel [--tiles N] [--seed N] [--functions N] [--max-live N | --dense] [--straight-line] [--name NAME]";

fn main() {
    let mut cfg = SynthConfig::default();
    let mut name = String::from("Synth");
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--tiles" => cfg.tiles_per_function = number(&value()),
            "--seed" => cfg.seed = number(&value()),
            "--functions" => cfg.functions = number(&value()),
            "--max-live" => cfg.max_live = Some(number(&value())),
            "--dense" => cfg.max_live = None,
            "--straight-line" => cfg.control_flow = false,
            "--name" => name = value(),
            "--help" | "-h" => {
                println!("{USAGE}");
                return;
            }
            other => fail(&format!("unknown argument '{other}'")),
        }
    }
    print!("{}", program_text(&name, &cfg));
}

fn number<T: std::str::FromStr>(text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| fail(&format!("'{text}' is not a number")))
}

fn fail(message: &str) -> ! {
    eprintln!("gen_kernel: {message}\n{USAGE}");
    std::process::exit(2)
}
