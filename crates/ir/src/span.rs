//! Byte ranges into the source text, and their line/column form.

/// A half-open byte range `[start, end)` into a file's text.
///
/// Spans never take part in equality or hashing: two IR nodes are equal when they mean the same
/// thing, wherever they were written. This is what makes the model location-independent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// A 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Maps byte offsets to line/column positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // memchr scans a word at a time: a byte-by-byte filter made indexing the files with
        // diagnostics half of a warm run's CPU (88 MB of real-size dumps).
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32 + 1));
        LineIndex { line_starts }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line(&self, offset: u32) -> u32 {
        self.line_starts.partition_point(|&s| s <= offset) as u32
    }

    pub fn line_col(&self, text: &str, offset: u32) -> LineCol {
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(text.len());
        let col = text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        LineCol {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }
}
