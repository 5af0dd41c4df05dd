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

const SPACE: usize = 6;
const TILES: usize = 6;
const BUFFERS: usize = 15;
const BYTES: usize = 21;
const LOWER_BOUND: usize = 11;
const FOOTPRINT: usize = 11;
const CAPACITY: usize = 9;

/// The header line (with its newline) for function names `width` wide.
pub fn header(width: usize) -> String {
    let mut line = String::new();
    cell(&mut line, "FUNCTION", width, Align::Left);
    cell(&mut line, "SPACE", SPACE, Align::Left);
    cell(&mut line, "TILES", TILES, Align::Right);
    cell(&mut line, "BUFFERS", BUFFERS, Align::Right);
    cell(&mut line, "BYTES", BYTES, Align::Right);
    cell(&mut line, "LOWER BOUND", LOWER_BOUND, Align::Right);
    cell(&mut line, "FOOTPRINT", FOOTPRINT, Align::Right);
    cell(&mut line, "CAPACITY", CAPACITY, Align::Right);
    line.push('\n');
    line
}

/// Replaces `line` with the row (and its newline) of `name`'s figures in one space.
pub fn row(line: &mut String, name: &str, width: usize, figures: &SpaceRow) {
    let mut number = itoa::Buffer::new();
    line.clear();
    cell(line, name, width, Align::Left);
    cell(line, figures.space, SPACE, Align::Left);
    cell(line, number.format(figures.tiles), TILES, Align::Right);
    pair(line, figures.buffers, BUFFERS);
    pair(line, figures.bytes, BYTES);
    cell(
        line,
        number.format(figures.lower_bound),
        LOWER_BOUND,
        Align::Right,
    );
    cell(
        line,
        number.format(figures.footprint),
        FOOTPRINT,
        Align::Right,
    );
    let capacity = match figures.capacity {
        0 => "unknown",
        capacity => number.format(capacity),
    };
    cell(line, capacity, CAPACITY, Align::Right);
    line.push('\n');
}

enum Align {
    Left,
    Right,
}

/// `a -> b`, right-aligned in `width`.
fn pair(line: &mut String, (a, b): (i64, i64), width: usize) {
    let (mut first, mut second) = (itoa::Buffer::new(), itoa::Buffer::new());
    let (a, b) = (first.format(a), second.format(b));
    cell(
        line,
        "",
        width.saturating_sub(a.len() + 4 + b.len()),
        Align::Right,
    );
    line.push_str(a);
    line.push_str(" -> ");
    line.push_str(b);
}

/// Appends a space (unless `line` is empty), then `text` padded to `width` characters.
fn cell(line: &mut String, text: &str, width: usize, align: Align) {
    const SPACES: &str = "                                                                ";
    if !line.is_empty() {
        line.push(' ');
    }
    let mut pad = width.saturating_sub(text.chars().count());
    if let Align::Left = align {
        line.push_str(text);
    }
    while pad > 0 {
        let step = pad.min(SPACES.len());
        line.push_str(&SPACES[..step]);
        pad -= step;
    }
    if let Align::Right = align {
        line.push_str(text);
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
