//! The placement problem: buffers with half-open lifetimes and sizes, the alignment of offsets,
//! an optional capacity and extra pairs that must not share bytes; plus the CSV reader.

use std::collections::HashMap;

use thiserror::Error;

/// One allocation root: live over the half-open interval `[lower, upper)`, `size` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    pub lower: u64,
    pub upper: u64,
    pub size: u64,
}

impl Buffer {
    /// Whether the lifetimes share an instant (touching ends `[0,3)`/`[3,9)` do not).
    pub fn lifetime_overlaps(&self, other: &Buffer) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// A placement problem for one memory space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub buffers: Vec<Buffer>,
    /// Every offset is a multiple of this (bytes, at least 1).
    pub alignment: u64,
    /// When set, every placed byte must lie below it.
    pub capacity: Option<u64>,
    /// Pairs of buffer indices whose byte ranges must be disjoint even when their lifetimes do
    /// not overlap (forbid-alias pairs, hazards, pinned allocations).
    pub disjoint_pairs: Vec<(usize, usize)>,
}

/// Why a [`Problem`] cannot be solved as stated.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProblemError {
    #[error("buffer {index}: lifetime [{lower}, {upper}) is empty")]
    EmptyLifetime {
        index: usize,
        lower: u64,
        upper: u64,
    },
    #[error("alignment must be at least 1")]
    ZeroAlignment,
    #[error("disjoint pair ({first}, {second}) names a buffer outside 0..{count}")]
    PairOutOfRange {
        first: usize,
        second: usize,
        count: usize,
    },
    #[error("disjoint pair ({index}, {index}) pairs a buffer with itself")]
    SelfPair { index: usize },
    #[error("the sizes add up to more than 2^64 bytes")]
    SizeOverflow,
}

impl Problem {
    /// A problem with alignment 1, no capacity and no extra disjoint pairs.
    pub fn new(buffers: Vec<Buffer>) -> Self {
        Problem {
            buffers,
            alignment: 1,
            capacity: None,
            disjoint_pairs: Vec::new(),
        }
    }

    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment;
        self
    }

    pub fn with_capacity(mut self, capacity: u64) -> Self {
        self.capacity = Some(capacity);
        self
    }

    pub fn with_disjoint_pairs(mut self, pairs: Vec<(usize, usize)>) -> Self {
        self.disjoint_pairs = pairs;
        self
    }

    /// The buffers live at `instant`, by index.
    pub fn live_at(&self, instant: u64) -> Vec<usize> {
        self.buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.lower <= instant && instant < b.upper)
            .map(|(index, _)| index)
            .collect()
    }

    /// Checks the invariants every planner relies on.
    pub fn validate(&self) -> Result<(), ProblemError> {
        if self.alignment == 0 {
            return Err(ProblemError::ZeroAlignment);
        }
        let mut total: u64 = 0;
        for (index, buffer) in self.buffers.iter().enumerate() {
            if buffer.upper <= buffer.lower {
                return Err(ProblemError::EmptyLifetime {
                    index,
                    lower: buffer.lower,
                    upper: buffer.upper,
                });
            }
            // Room for every buffer stacked, each padded to the alignment, must fit in u64 so
            // that no offset arithmetic can overflow.
            let padded = buffer
                .size
                .checked_next_multiple_of(self.alignment)
                .ok_or(ProblemError::SizeOverflow)?;
            total = total
                .checked_add(padded)
                .ok_or(ProblemError::SizeOverflow)?;
        }
        let count = self.buffers.len();
        for &(first, second) in &self.disjoint_pairs {
            if first >= count || second >= count {
                return Err(ProblemError::PairOutOfRange {
                    first,
                    second,
                    count,
                });
            }
            if first == second {
                return Err(ProblemError::SelfPair { index: first });
            }
        }
        Ok(())
    }
}

/// A problem read from CSV, with the id of each buffer (same order as `problem.buffers`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvProblem {
    pub ids: Vec<String>,
    pub problem: Problem,
}

/// A CSV error located at a 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct CsvError {
    pub line: usize,
    pub kind: CsvErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CsvErrorKind {
    #[error("empty file, expected the header `id,lower,upper,size`")]
    MissingHeader,
    #[error("the header has no `{column}` column (expected `id,lower,upper,size`)")]
    MissingColumn { column: &'static str },
    #[error("expected {expected} fields, found {found}")]
    FieldCount { expected: usize, found: usize },
    #[error("{column} `{value}` is not a non-negative integer")]
    InvalidNumber { column: &'static str, value: String },
    #[error("{column} {value} is negative")]
    Negative { column: &'static str, value: String },
    #[error("upper {upper} <= lower {lower}: the lifetime is empty")]
    EmptyLifetime { lower: u64, upper: u64 },
    #[error("empty id")]
    EmptyId,
    #[error("duplicate id `{id}` (first on line {first_line})")]
    DuplicateId { id: String, first_line: usize },
}

/// Column positions found in the header.
struct Columns {
    id: usize,
    lower: usize,
    upper: usize,
    size: usize,
    count: usize,
}

impl Columns {
    fn from_header(header: &str) -> Result<Columns, CsvErrorKind> {
        let names: Vec<String> = header
            .split(',')
            .map(|name| name.trim().to_ascii_lowercase())
            .collect();
        // MiniMalloc's and idealloc's exports name the same columns slightly differently.
        let find = |column: &'static str, aliases: &[&str]| {
            names
                .iter()
                .position(|name| aliases.contains(&name.as_str()))
                .ok_or(CsvErrorKind::MissingColumn { column })
        };
        Ok(Columns {
            id: find("id", &["id", "buffer"])?,
            lower: find("lower", &["lower", "start", "begin"])?,
            upper: find("upper", &["upper", "end"])?,
            size: find("size", &["size"])?,
            count: names.len(),
        })
    }
}

fn parse_number(column: &'static str, field: &str) -> Result<u64, CsvErrorKind> {
    field.parse::<u64>().map_err(|_| {
        let is_negative_integer = field
            .strip_prefix('-')
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
        if is_negative_integer {
            CsvErrorKind::Negative {
                column,
                value: field.to_string(),
            }
        } else {
            CsvErrorKind::InvalidNumber {
                column,
                value: field.to_string(),
            }
        }
    })
}

/// Parses `id,lower,upper,size` CSV text (header required, blank lines skipped, alignment 1).
pub fn parse_csv(text: &str) -> Result<CsvProblem, CsvError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty());
    let (header_line, header) = lines.next().ok_or(CsvError {
        line: 1,
        kind: CsvErrorKind::MissingHeader,
    })?;
    let columns = Columns::from_header(header).map_err(|kind| CsvError {
        line: header_line,
        kind,
    })?;
    let mut ids = Vec::new();
    let mut buffers = Vec::new();
    let mut first_line_of_id: HashMap<String, usize> = HashMap::new();
    for (line, text) in lines {
        let located = |kind| CsvError { line, kind };
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        if fields.len() != columns.count {
            return Err(located(CsvErrorKind::FieldCount {
                expected: columns.count,
                found: fields.len(),
            }));
        }
        let id = fields[columns.id];
        if id.is_empty() {
            return Err(located(CsvErrorKind::EmptyId));
        }
        let lower = parse_number("lower", fields[columns.lower]).map_err(located)?;
        let upper = parse_number("upper", fields[columns.upper]).map_err(located)?;
        let size = parse_number("size", fields[columns.size]).map_err(located)?;
        if upper <= lower {
            return Err(located(CsvErrorKind::EmptyLifetime { lower, upper }));
        }
        if let Some(&first_line) = first_line_of_id.get(id) {
            return Err(located(CsvErrorKind::DuplicateId {
                id: id.to_string(),
                first_line,
            }));
        }
        first_line_of_id.insert(id.to_string(), line);
        ids.push(id.to_string());
        buffers.push(Buffer { lower, upper, size });
    }
    Ok(CsvProblem {
        ids,
        problem: Problem::new(buffers),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> CsvError {
        parse_csv(text).expect_err("the text is invalid")
    }

    #[test]
    fn parses_the_minimalloc_example() {
        let parsed = parse_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n\n").unwrap();
        assert_eq!(parsed.ids, ["b1", "b2"]);
        assert_eq!(
            parsed.problem.buffers,
            [
                Buffer {
                    lower: 0,
                    upper: 3,
                    size: 4
                },
                Buffer {
                    lower: 3,
                    upper: 9,
                    size: 4
                }
            ]
        );
        assert!(!parsed.problem.buffers[0].lifetime_overlaps(&parsed.problem.buffers[1]));
    }

    #[test]
    fn accepts_reordered_and_extra_columns() {
        let parsed = parse_csv("size,upper,lower,id,alignment\n8,5,1,x,1\n").unwrap();
        assert_eq!(
            parsed.problem.buffers[0],
            Buffer {
                lower: 1,
                upper: 5,
                size: 8
            }
        );
    }

    #[test]
    fn locates_errors() {
        assert_eq!(error_of("").kind, CsvErrorKind::MissingHeader);
        assert_eq!(
            error_of("id,lower,size\n").kind,
            CsvErrorKind::MissingColumn { column: "upper" }
        );
        let missing_field = error_of("id,lower,upper,size\na,0,1,1\nb,0,1\n");
        assert_eq!(missing_field.line, 3);
        assert_eq!(
            missing_field.kind,
            CsvErrorKind::FieldCount {
                expected: 4,
                found: 3
            }
        );
        let negative = error_of("id,lower,upper,size\na,0,1,-4\n");
        assert_eq!(negative.line, 2);
        assert!(matches!(
            negative.kind,
            CsvErrorKind::Negative { column: "size", .. }
        ));
        assert!(matches!(
            error_of("id,lower,upper,size\na,0,x,4\n").kind,
            CsvErrorKind::InvalidNumber {
                column: "upper",
                ..
            }
        ));
        let empty = error_of("id,lower,upper,size\n\na,5,5,4\n");
        assert_eq!(empty.line, 3);
        assert_eq!(
            empty.kind,
            CsvErrorKind::EmptyLifetime { lower: 5, upper: 5 }
        );
        let duplicate = error_of("id,lower,upper,size\na,0,1,4\na,2,3,4\n");
        assert_eq!(duplicate.line, 3);
        assert_eq!(
            duplicate.to_string(),
            "line 3: duplicate id `a` (first on line 2)"
        );
    }

    #[test]
    fn validation_rejects_broken_problems() {
        let buffer = Buffer {
            lower: 0,
            upper: 2,
            size: 4,
        };
        assert_eq!(
            Problem::new(vec![buffer]).with_alignment(0).validate(),
            Err(ProblemError::ZeroAlignment)
        );
        assert_eq!(
            Problem::new(vec![buffer])
                .with_disjoint_pairs(vec![(0, 3)])
                .validate(),
            Err(ProblemError::PairOutOfRange {
                first: 0,
                second: 3,
                count: 1
            })
        );
        assert_eq!(
            Problem::new(vec![buffer, buffer])
                .with_disjoint_pairs(vec![(1, 1)])
                .validate(),
            Err(ProblemError::SelfPair { index: 1 })
        );
        let huge = Buffer {
            size: u64::MAX,
            ..buffer
        };
        assert_eq!(
            Problem::new(vec![huge, huge]).validate(),
            Err(ProblemError::SizeOverflow)
        );
        assert!(Problem::new(vec![buffer, buffer]).validate().is_ok());
    }
}
