//! Arbitrary bytes into the parser: it must never panic, and whatever it accepts must print to
//! text that parses again and prints identically (the printer is idempotent on parsed input).

#![no_main]

use libfuzzer_sys::fuzz_target;
use memreuse::ir::{parse_program, print_program};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = parse_program(text) else {
        return;
    };
    let printed = print_program(&program);
    let reparsed = parse_program(&printed)
        .unwrap_or_else(|e| panic!("printed text does not parse: {e:?}\n{printed}"));
    let reprinted = print_program(&reparsed);
    assert_eq!(reprinted, printed, "printing is not idempotent");
});
