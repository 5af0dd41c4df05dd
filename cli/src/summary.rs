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
    /// 0 when unknown.
    pub capacity: i64,
}

const SPACE: usize = 5;
const TILES: usize = 5;
const BUFFERS: usize = 10;
const BYTES: usize = 22;
const SIZE: usize = 9;

/// Rows name functions indented under their file's line.
pub const INDENT: &str = "  ";

/// The width of the function column for functions named `names`.
pub fn name_width<'n>(names: impl Iterator<Item = &'n str>) -> usize {
    names
        .map(|n| INDENT.len() + n.chars().count())
        .max()
        .unwrap_or(0)
        .max("FUNCTION".len())
}

/// The header line (with its newline) for function names `width` wide.
pub fn header(width: usize) -> String {
    let mut line = String::new();
    cell(&mut line, "FUNCTION", width, Align::Left);
    cell(&mut line, "SPACE", SPACE, Align::Left);
    cell(&mut line, "TILES", TILES, Align::Right);
    cell(&mut line, "BUFFERS", BUFFERS, Align::Right);
    cell(&mut line, "BYTES", BYTES, Align::Right);
    cell(&mut line, "LOWER BOUND", SIZE + 2, Align::Right);
    cell(&mut line, "FOOTPRINT", SIZE, Align::Right);
    cell(&mut line, "CAPACITY", SIZE, Align::Right);
    line.push('\n');
    line
}

/// What the columns mean, printed once under the table.
pub const LEGEND: &str = "BUFFERS and BYTES: before -> after planning. LOWER BOUND: the most \
    bytes live at one statement.\nFOOTPRINT: the bytes the plan allocates. `-v` lists which \
    tiles share each buffer.";

/// Replaces `line` with the row (and its newline) of function `name`'s figures in one space.
pub fn row(line: &mut String, name: &str, width: usize, figures: &SpaceRow) {
    let mut number = itoa::Buffer::new();
    line.clear();
    line.push_str(INDENT);
    line.push_str(name);
    pad(
        line,
        width.saturating_sub(INDENT.len() + name.chars().count()),
    );
    cell(line, figures.space, SPACE, Align::Left);
    cell(line, number.format(figures.tiles), TILES, Align::Right);
    pair(line, figures.buffers, BUFFERS, number_text);
    pair(line, figures.bytes, BYTES, size_text);
    cell(
        line,
        &size_text(figures.lower_bound),
        SIZE + 2,
        Align::Right,
    );
    cell(line, &size_text(figures.footprint), SIZE, Align::Right);
    let capacity = match figures.capacity {
        0 => "unknown".to_string(),
        capacity => size_text(capacity),
    };
    cell(line, &capacity, SIZE, Align::Right);
    line.push('\n');
}

fn number_text(n: i64) -> String {
    itoa::Buffer::new().format(n).to_string()
}

/// A byte count in a table cell: exact below 1 KiB, else [`human_bytes`].
fn size_text(bytes: i64) -> String {
    match u64::try_from(bytes) {
        Ok(bytes) => human_bytes(bytes),
        Err(_) => format!("{bytes} B"),
    }
}

enum Align {
    Left,
    Right,
}

/// `a -> b`, right-aligned in `width`.
fn pair(line: &mut String, (a, b): (i64, i64), width: usize, text: impl Fn(i64) -> String) {
    let (a, b) = (text(a), text(b));
    cell(
        line,
        "",
        width.saturating_sub(a.len() + 4 + b.len()),
        Align::Right,
    );
    line.push_str(&a);
    line.push_str(" -> ");
    line.push_str(&b);
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

/// Appends `count` spaces.
fn pad(line: &mut String, mut count: usize) {
    const SPACES: &str = "                                                                ";
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

/// `512 B`, `1.5 KiB`, `104.0 MiB`: byte counts as people read them.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_read_like_people_write_them() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(104 * 1024 * 1024), "104.0 MiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
