//! The summary table `plan` and `query` print: one row per function and memory space.
//!
//! Rows are padded by hand: `{:>N}` pads one character at a time, which made formatting most
//! of a warm run's time (80,000 rows for 20,000 functions).

/// One row's figures.
pub struct SpaceRow<'a> {
    pub space: &'a str,
    pub tiles: i64,
    pub buffers: (i64, i64),
    pub bytes: (i64, i64),
    pub lower_bound: i64,
    pub footprint: i64,
    /// `None` when unknown.
    pub capacity: Option<i64>,
}

/// The widths of the figures' columns; a size's (LOWER BOUND two wider, FOOTPRINT,
/// CAPACITY) is `size`.
struct Widths {
    space: usize,
    tiles: usize,
    buffers: usize,
    bytes: usize,
    size: usize,
}

const WIDTH: Widths = Widths {
    space: 5,
    tiles: 5,
    buffers: 10,
    bytes: 22,
    size: 9,
};

/// The narrowest the summary is made: its rows need 80 columns with every function's name
/// on a line of its own.
const MIN_COLUMNS: usize = 80;

/// The width the summary fits, the table and every line under it wrapped: `COLUMNS` when
/// set (as `ls` and shells take it), else the terminal's when standard output is one, else
/// 80; never less than 80.
pub fn columns() -> usize {
    static COLUMNS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *COLUMNS.get_or_init(|| {
        use std::io::IsTerminal as _;
        let terminal = || {
            let stdout = std::io::stdout();
            let size = stdout
                .is_terminal()
                .then(|| console::Term::stdout().size_checked());
            size.flatten().map(|(_rows, columns)| usize::from(columns))
        };
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse().ok())
            .or_else(terminal)
            .unwrap_or(MIN_COLUMNS)
            .max(MIN_COLUMNS)
    })
}

/// The columns after FUNCTION, each with the space before it.
const FIGURES: usize =
    WIDTH.space + WIDTH.tiles + WIDTH.buffers + WIDTH.bytes + 3 * WIDTH.size + 2 + 7;

/// Rows name functions indented under their file's line.
pub const INDENT: &str = "  ";

/// The width of the function column for functions named `names`: as wide as the longest
/// name, but no wider than keeps a row within [`columns`] (a longer name gets a line of its
/// own above its rows). Where not even `FUNCTION` fits, the column is the indent alone and
/// every name is on a line of its own.
pub fn name_width<'n>(names: impl Iterator<Item = &'n str>) -> usize {
    name_width_within(names, columns())
}

fn name_width_within<'n>(names: impl Iterator<Item = &'n str>, columns: usize) -> usize {
    let widest = names
        .map(|n| INDENT.len() + n.chars().count())
        .max()
        .unwrap_or(0)
        .max(FUNCTION.len());
    let room = columns.saturating_sub(FIGURES);
    match room {
        _ if widest <= room => widest,
        _ if room >= FUNCTION.len() => room,
        _ => INDENT.len(),
    }
}

/// The first column's title.
const FUNCTION: &str = "FUNCTION";

/// Starts a row of function `name` in `line`: the name padded to `width`, or, when it does
/// not fit, the name on a line of its own and the row's name cell blank.
pub fn name_cell(line: &mut String, name: &str, width: usize) {
    line.push_str(INDENT);
    let chars = name.chars().count();
    if INDENT.len() + chars > width {
        line.push_str(name);
        line.push('\n');
        pad(line, width);
    } else {
        line.push_str(name);
        pad(line, width - INDENT.len() - chars);
    }
}

/// The name to start a function's row with: the name on its first row; on later rows too
/// when it fits the column, else nothing (its own line above the first row names them all).
pub fn row_name(name: &str, width: usize, first: bool) -> &str {
    if first || INDENT.len() + name.chars().count() <= width {
        name
    } else {
        ""
    }
}

/// `text` after `first` (the line's start), wrapped at spaces to [`columns`], continuation
/// lines indented by `indent` spaces; with a newline after each line.
pub fn wrapped(first: &str, text: &str, indent: usize) -> String {
    wrapped_within(first, text, indent, columns())
}

fn wrapped_within(first: &str, text: &str, indent: usize, columns: usize) -> String {
    let mut out = String::with_capacity(first.len() + text.len() + 1);
    out.push_str(first);
    let mut column = first.chars().count();
    let mut line_empty = first.is_empty();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let len = word.chars().count();
        if !line_empty && column + 1 + len > columns {
            out.push('\n');
            pad(&mut out, indent);
            column = indent;
            line_empty = true;
        }
        if !line_empty {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += len;
        line_empty = false;
    }
    out.push('\n');
    out
}

/// A function's diagnostic under its rows (the file's path is on the line above the rows):
/// `    12:9: warning[MR-R001]: message`, wrapped.
pub fn diagnostic(line: usize, col: usize, severity: &str, code: &str, message: &str) -> String {
    let first = format!("{INDENT}{INDENT}{line}:{col}: {severity}[{code}]:");
    wrapped(&first, message, 3 * INDENT.len())
}

/// The header line (with its newline) for function names `width` wide.
pub fn header(width: usize) -> String {
    let mut line = String::new();
    // Too narrow a column for its title: the title on a line of its own, as the names are.
    if width < FUNCTION.len() {
        line.push_str(FUNCTION);
        line.push('\n');
        pad(&mut line, width);
    } else {
        cell(&mut line, FUNCTION, width, Align::Left);
    }
    cell(&mut line, "SPACE", WIDTH.space, Align::Left);
    cell(&mut line, "TILES", WIDTH.tiles, Align::Right);
    cell(&mut line, "BUFFERS", WIDTH.buffers, Align::Right);
    cell(&mut line, "BYTES", WIDTH.bytes, Align::Right);
    cell(&mut line, "LOWER BOUND", WIDTH.size + 2, Align::Right);
    cell(&mut line, "FOOTPRINT", WIDTH.size, Align::Right);
    cell(&mut line, "CAPACITY", WIDTH.size, Align::Right);
    line.push('\n');
    line
}

/// What the columns mean, printed once under the table (with its newline), wrapped.
pub fn legend() -> String {
    const LEGEND: [&str; 2] = [
        "BUFFERS and BYTES: before -> after. LOWER BOUND: the most bytes live at once.",
        "FOOTPRINT: the bytes the plan allocates. `-v` lists the tiles of each buffer.",
    ];
    LEGEND.iter().map(|line| wrapped("", line, 0)).collect()
}

/// Replaces `line` with the row (and its newline) of function `name`'s figures in one space.
/// Every figure is written into `line` itself: a `String` per cell made most of a warm
/// run's printing (seven figures a row).
pub fn row(line: &mut String, name: &str, width: usize, figures: &SpaceRow) {
    line.clear();
    name_cell(line, name, width);
    cell(line, figures.space, WIDTH.space, Align::Left);
    right_cell(line, WIDTH.tiles, |l| number_into(l, figures.tiles));
    let (before, after) = figures.buffers;
    right_cell(line, WIDTH.buffers, |l| {
        number_into(l, before);
        l.push_str(" -> ");
        number_into(l, after);
    });
    let (before, after) = figures.bytes;
    right_cell(line, WIDTH.bytes, |l| {
        size_into(l, before);
        l.push_str(" -> ");
        size_into(l, after);
    });
    right_cell(line, WIDTH.size + 2, |l| size_into(l, figures.lower_bound));
    right_cell(line, WIDTH.size, |l| size_into(l, figures.footprint));
    right_cell(line, WIDTH.size, |l| match figures.capacity {
        Some(capacity) => size_into(l, capacity),
        None => l.push_str("unknown"),
    });
    line.push('\n');
}

fn number_into(line: &mut String, n: i64) {
    line.push_str(itoa::Buffer::new().format(n));
}

/// A byte count in a table cell: exact below 1 KiB, else as [`human_bytes`] writes it.
fn size_into(line: &mut String, bytes: i64) {
    match u64::try_from(bytes) {
        Ok(bytes) => human_bytes_into(line, bytes),
        Err(_) => {
            number_into(line, bytes);
            line.push_str(" B");
        }
    }
}

enum Align {
    Left,
    Right,
}

/// Appends a space (unless `line` is empty), then what `write` appends, right-aligned in
/// `width` characters (the padding goes in before it once its width is known).
fn right_cell(line: &mut String, width: usize, write: impl FnOnce(&mut String)) {
    if !line.is_empty() {
        line.push(' ');
    }
    let start = line.len();
    write(line);
    let mut missing = width.saturating_sub(line[start..].chars().count());
    while missing > 0 {
        let step = missing.min(SPACES.len());
        line.insert_str(start, &SPACES[..step]);
        missing -= step;
    }
}

/// Appends a space (unless `line` is empty), then `text` padded to `width` characters.
fn cell(line: &mut String, text: &str, width: usize, align: Align) {
    if !line.is_empty() {
        line.push(' ');
    }
    let spaces = width.saturating_sub(text.chars().count());
    if let Align::Left = align {
        line.push_str(text);
    }
    pad(line, spaces);
    if let Align::Right = align {
        line.push_str(text);
    }
}

const SPACES: &str = "                                                                ";

/// Appends `count` spaces.
fn pad(line: &mut String, mut count: usize) {
    while count > 0 {
        let step = count.min(SPACES.len());
        line.push_str(&SPACES[..step]);
        count -= step;
    }
}

/// `1 file`, `2 files`.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// `512 B`, `1.5 KiB`, `104.0 MiB`: byte counts as people read them. Integer arithmetic
/// (tenths rounded half to even, as `{:.1}` rounds): formatting floats to a precision took a
/// tenth of a warm run, five cells a row.
pub fn human_bytes(bytes: u64) -> String {
    let mut out = String::with_capacity(16);
    human_bytes_into(&mut out, bytes);
    out
}

/// Appends [`human_bytes`] of `bytes` to `out`.
fn human_bytes_into(out: &mut String, bytes: u64) {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        out.push_str(itoa::Buffer::new().format(bytes));
        out.push_str(" B");
        return;
    }
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1u64 << (10 * (unit + 2)) {
        unit += 1;
    }
    // The scale is a power of two: shifts and masks, not 128-bit divisions (a library call).
    let shift = 10 * (unit + 1);
    let scale = 1u128 << shift;
    let tenths = u128::from(bytes) * 10;
    let (mut whole, rest) = (tenths >> shift, tenths & (scale - 1));
    if rest * 2 > scale || (rest * 2 == scale && whole % 2 == 1) {
        whole += 1;
    }
    out.push_str(itoa::Buffer::new().format(whole / 10));
    out.push('.');
    out.push(char::from(b'0' + (whole % 10) as u8));
    out.push(' ');
    out.push_str(UNITS[unit]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_and_long_text_stay_within_the_columns() {
        for columns in [80, 100, 120] {
            stays_within(columns);
        }
    }

    fn stays_within(columns: usize) {
        let name = "a_function_name_much_longer_than_the_column_allows";
        let width = name_width_within([name].into_iter(), columns);
        assert!(width + FIGURES <= columns);
        let table = header(width);
        assert!(
            table.lines().all(|l| l.chars().count() <= columns),
            "{table}"
        );
        let mut line = String::new();
        let figures = SpaceRow {
            space: "Vec",
            tiles: 21,
            buffers: (19, 8),
            bytes: (112 << 10, 32 << 10),
            lower_bound: 32 << 10,
            footprint: 32 << 10,
            capacity: Some(240 << 10),
        };
        row(&mut line, name, width, &figures);
        let lines: Vec<&str> = line.lines().collect();
        assert_eq!(lines.len(), 2, "{line}");
        assert!(lines.iter().all(|l| l.chars().count() <= columns), "{line}");
        // A short name shares its row where the columns leave room for it.
        row(
            &mut line,
            "main",
            name_width_within(["main"].into_iter(), columns),
            &figures,
        );
        assert_eq!(
            line.lines().count(),
            if columns < 90 { 2 } else { 1 },
            "{line}"
        );
        let text = "word ".repeat(60);
        let wrapped = wrapped_within("  first:", &text, 6, columns);
        assert!(wrapped.lines().count() > 1);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= columns),
            "{wrapped}"
        );
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("      word")));
    }

    #[test]
    fn byte_sizes_read_like_people_write_them() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(104 * 1024 * 1024), "104.0 MiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
        // As `{:.1}` of the exact quotient has it, ties to even included.
        for bytes in (1024..300_000)
            .step_by(7)
            .chain([1280, 1408, (1 << 20) - 1, u64::MAX])
        {
            let (mut value, mut unit) = (bytes as f64 / 1024.0, 0);
            while value >= 1024.0 && unit < 4 {
                value /= 1024.0;
                unit += 1;
            }
            let units = ["KiB", "MiB", "GiB", "TiB", "PiB"];
            assert_eq!(
                human_bytes(bytes),
                format!("{value:.1} {}", units[unit]),
                "{bytes}"
            );
        }
    }
}
