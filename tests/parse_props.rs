//! Parser properties over generated programs: synthetic programs (`synth::program_text`) print
//! back byte for byte and re-parse to the same model; mutated versions of them never panic the
//! parser, and every diagnostic it reports points inside the text and renders as
//! `file:line:col`.

use memreuse::ir::{LineIndex, Program, parse_program, print_program};
use memreuse_testgen::synth::{SynthConfig, program_text};
use proptest::prelude::*;
use proptest::sample::Index;

const FILE: &str = "mutated.py";

fn small_config() -> impl Strategy<Value = SynthConfig> {
    (
        1usize..=3,
        1usize..=60,
        prop::option::of(1usize..=12),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(
            |(functions, tiles_per_function, max_live, seed, control_flow)| SynthConfig {
                functions,
                tiles_per_function,
                max_live,
                seed,
                control_flow,
            },
        )
}

/// One edit to a program's text; indices are scaled to the text when applied.
#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(Index),
    DuplicateLine(Index),
    SwapLines(Index, Index),
    InsertChar(Index, char),
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::DeleteLine),
        any::<Index>().prop_map(Mutation::DuplicateLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<Index>(), any::<char>()).prop_map(|(at, c)| Mutation::InsertChar(at, c)),
        // Mostly printable ASCII: the characters that keep a line lexable but change its meaning.
        (any::<Index>(), proptest::char::range(' ', '~'))
            .prop_map(|(at, c)| Mutation::InsertChar(at, c)),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

/// The char boundary at or before the byte `index` scales to (`0..=text.len()`).
fn boundary(text: &str, index: &Index) -> usize {
    let mut at = index.index(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let line_edit = matches!(
        mutation,
        Mutation::DeleteLine(_) | Mutation::DuplicateLine(_) | Mutation::SwapLines(..)
    );
    if line_edit && lines.is_empty() {
        // An earlier edit emptied the text; there is no line left to edit.
        return String::new();
    }
    match mutation {
        Mutation::DeleteLine(line) => {
            lines.remove(line.index(lines.len()));
        }
        Mutation::DuplicateLine(line) => {
            let at = line.index(lines.len());
            lines.insert(at, lines[at]);
        }
        Mutation::SwapLines(a, b) => {
            let (a, b) = (a.index(lines.len()), b.index(lines.len()));
            lines.swap(a, b);
        }
        Mutation::InsertChar(at, c) => {
            let mut out = text.to_string();
            out.insert(boundary(text, at), *c);
            return out;
        }
        Mutation::Truncate(at) => return text[..boundary(text, at)].to_string(),
    }
    lines.concat()
}

fn parse(text: &str) -> Program {
    parse_program(text).unwrap_or_else(|e| panic!("does not parse: {e:?}\n{text}"))
}

proptest! {
    #[test]
    fn synthetic_programs_round_trip(cfg in small_config()) {
        let text = program_text("Synth", &cfg);
        let program = parse(&text);
        let printed = print_program(&program);
        prop_assert_eq!(&printed, &text, "print(parse(text)) != text");
        prop_assert_eq!(parse(&printed), program, "parse(print(ir)) != ir");
    }

    #[test]
    fn mutated_programs_fail_with_located_diagnostics(
        cfg in small_config(),
        mutations in prop::collection::vec(mutation(), 1..=3),
    ) {
        let text = mutations
            .iter()
            .fold(program_text("Synth", &cfg), |text, m| apply(&text, m));
        match parse_program(&text) {
            Ok(program) => {
                let printed = print_program(&program);
                prop_assert_eq!(parse(&printed), program, "parse(print(ir)) != ir");
            }
            Err(error) => {
                prop_assert!(!error.diagnostics.is_empty());
                let lines = LineIndex::new(&text);
                for diagnostic in &error.diagnostics {
                    let span = diagnostic.span.range();
                    prop_assert!(
                        span.start <= span.end && span.end <= text.len(),
                        "{diagnostic:?} lies outside the {} bytes of text", text.len()
                    );
                    prop_assert!(
                        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                        "{diagnostic:?} splits a character"
                    );
                    let at = lines.line_col(&text, diagnostic.span.start);
                    let location = format!("{FILE}:{}:{}", at.line, at.col);
                    let rendered = diagnostic.render(FILE, &text);
                    prop_assert!(
                        rendered.contains(&location),
                        "{location} missing from\n{rendered}"
                    );
                }
            }
        }
    }
}
