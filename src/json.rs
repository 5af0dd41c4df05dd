//! The plan as JSON (docs/json.md, schema 4). Field order is fixed; the same input gives
//! the same bytes.

use serde::ser::SerializeMap as _;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::db::FunctionOutcome;
use crate::diagnostics::Diagnostic;
use crate::ir::LineIndex;
use crate::plan::{BufferReport, PlanReport, SpaceReport};
use crate::repair::is_repair;

/// 2: `repairs` (the safe planner's repairs of PyPTO's plan) beside `diagnostics`.
/// 3: a space's `capacity` is `null` where unknown (was 0).
/// 4: `plan --emit json` leaves out each function's `lifetimes` unless `--lifetimes`.
pub const SCHEMA_VERSION: u32 = 4;

use crate::ir::codes;

/// The document's `tool`.
const TOOL: &str = concat!("memreuse ", env!("CARGO_PKG_VERSION"));

/// One input file: its path as given, its text, and either every function in order
/// (planned or failed) or why it has none.
pub struct FileReport<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub functions: Vec<FunctionEntry<'a>>,
    /// Why the file gave no functions at all.
    pub error: Option<FileError<'a>>,
}

/// A file that could not be planned as a whole.
pub enum FileError<'a> {
    /// It could not be read (the message says why).
    Unreadable(&'a str),
    /// It does not parse (located in `text`).
    Parse(&'a [Diagnostic]),
}

/// One function of a file: its plan, or why it has none.
pub enum FunctionEntry<'a> {
    Planned(FunctionReport<'a>),
    Failed(FailedFunction<'a>),
}

/// A function that got no plan. `failure` is `plan` (the planner refused it, PyPTO's
/// ValueError) or `verify` (its plan failed the checker: an internal error, never emitted).
pub struct FailedFunction<'a> {
    pub name: &'a str,
    pub failure: &'static str,
    pub diagnostics: &'a [Diagnostic],
}

/// One planned function: its name, the blake3 digest of its planned canonical bytes, what
/// the planner decided (spans located in the file's text), and whether the plan came from
/// the cache.
pub struct FunctionReport<'a> {
    pub name: &'a str,
    pub digest: [u8; 32],
    pub report: &'a PlanReport,
    pub cached: bool,
}

/// A planned function whose report was asked for without its detail: JSON needs it all.
#[derive(Debug, thiserror::Error)]
#[error("internal error: the report of '{0}' lacks its detail")]
pub struct MissingDetail(pub String);

/// The entries of a planned file's functions, in order; `cached` says which plans the cache
/// served. Every planned function's report must be detailed (`add_report_detail`).
pub fn function_entries<'a>(
    functions: &'a [FunctionOutcome],
    cached: impl Fn(&FunctionOutcome) -> bool,
) -> Result<Vec<FunctionEntry<'a>>, MissingDetail> {
    functions
        .iter()
        .map(|f| match &f.result {
            Ok(planned) => {
                let report = planned
                    .report
                    .detailed()
                    .ok_or_else(|| MissingDetail(f.name.to_string()))?;
                Ok(FunctionEntry::Planned(FunctionReport {
                    name: &f.name,
                    digest: planned.planned_digest,
                    report,
                    cached: cached(f),
                }))
            }
            Err((kind, diagnostics)) => Ok(FunctionEntry::Failed(FailedFunction {
                name: &f.name,
                failure: kind.name(),
                diagnostics,
            })),
        })
        .collect()
}

/// The whole document as a value (one file's, for `query` and the Python package); printed
/// pretty it is what [`write_plan_document`] writes.
pub fn plan_document(backend: &str, planner: &str, files: &[FileReport]) -> Value {
    let files = Array(|| files.iter().map(FileJson::new));
    let mut document = Map::new();
    document.insert("schema".into(), Value::from(SCHEMA_VERSION));
    document.insert("tool".into(), Value::from(TOOL));
    document.insert("backend".into(), Value::from(backend));
    document.insert("planner".into(), Value::from(planner));
    document.insert("files".into(), value_of(&files));
    Value::Object(document)
}

/// `serialize` into a `Value`: that fails only for maps with keys other than strings, which
/// these documents do not have.
fn value_of(serialize: &impl Serialize) -> Value {
    serde_json::to_value(serialize).unwrap_or(Value::Null)
}

/// Writes the document [`plan_document`] makes, byte for byte as `serde_json` prints it
/// pretty, taking one file's entry at a time from `files`, each printed by [`file_entry`]
/// (so that files can be printed on several threads): a tree's document is never whole in
/// memory, and no file's goes through a `Value`. `out` is handed back.
pub fn write_plan_document<W: std::io::Write>(
    mut out: W,
    backend: &str,
    planner: &str,
    files: impl Iterator<Item = impl AsRef<[u8]>>,
) -> std::io::Result<W> {
    let string = |s: &str| serde_json::to_string(s).map_err(std::io::Error::other);
    write!(
        out,
        "{{\n  \"schema\": {SCHEMA_VERSION},\n  \"tool\": {},\n  \"backend\": {},\n  \
         \"planner\": {},\n  \"files\": [",
        string(TOOL)?,
        string(backend)?,
        string(planner)?
    )?;
    let mut any = false;
    for entry in files {
        out.write_all(if any { b",\n    " } else { b"\n    " })?;
        out.write_all(entry.as_ref())?;
        any = true;
    }
    out.write_all(if any { b"\n  ]\n}" } else { b"]\n}" })?;
    Ok(out)
}

/// What a file's entry depends on beside its report and its text (the store's
/// `variant`, [`crate::store::json_key`]): the layout, by schema and version of this tool,
/// and the options.
pub fn entry_variant(lifetimes: bool) -> Vec<u8> {
    format!("schema {SCHEMA_VERSION}, layout {ENTRY_LAYOUT}, {TOOL}, lifetimes {lifetimes}")
        .into_bytes()
}

/// Bumped whenever a file's entry prints differently from the same report and text (a
/// field, its order, the indentation), so that the store serves no entry of the layout
/// before; a test pins the layout's bytes.
const ENTRY_LAYOUT: u32 = 1;

/// The start of the entry [`file_entry`] prints for the file at `path`, up to and including
/// the path (its first field): what is left of the entry after it serves the same text
/// planned at another path (the store keeps entries so).
pub fn entry_head(path: &str) -> Result<Vec<u8>, serde_json::Error> {
    let mut head = Vec::with_capacity(path.len() + 20);
    let mut serializer = serde_json::Serializer::with_formatter(&mut head, Nested::default());
    // Left open: the fields after the path are the rest.
    let mut map = (&mut serializer).serialize_map(None)?;
    map.serialize_entry("path", path)?;
    Ok(head)
}

/// One file's entry of the document's `files` (a [`FileJson`], or a value that serializes as
/// one) printed pretty and indented for its place there, for [`write_plan_document`].
pub fn file_entry(file: &impl Serialize) -> Result<Vec<u8>, serde_json::Error> {
    // An entry is as long as its file, often longer: fewer copies as it grows.
    let mut printed = Vec::with_capacity(1 << 16);
    let mut serializer = serde_json::Serializer::with_formatter(&mut printed, Nested::default());
    file.serialize(&mut serializer)?;
    Ok(printed)
}

/// serde_json's pretty layout (two spaces a level) for a value printed two levels deep,
/// where the document's `files` holds it: printed in place, not indented afterwards (which
/// copied every entry once more).
#[derive(Default)]
struct Nested {
    /// Levels inside the entry.
    depth: usize,
    /// Whether the array or object just closed held anything.
    has_value: bool,
}

impl Nested {
    const ENTRY_DEPTH: usize = 2;

    fn new_line<W: ?Sized + std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        // One write for the line break and its indent, as deep as an entry goes.
        const INDENTED: &[u8; 41] = b"\n                                        ";
        let width = 2 * (Self::ENTRY_DEPTH + self.depth);
        match INDENTED.get(..=width) {
            Some(line) => out.write_all(line),
            None => {
                out.write_all(INDENTED)?;
                (INDENTED.len() - 1..width).try_for_each(|_| out.write_all(b" "))
            }
        }
    }

    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(out)?;
        }
        out.write_all(bracket)
    }

    fn item<W: ?Sized + std::io::Write>(&self, out: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        self.new_line(out)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(out, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(out, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        out: &mut W,
    ) -> std::io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// An array of what the closure's iterator yields, made when printed.
struct Array<F>(F);

impl<F, I> Serialize for Array<F>
where
    F: Fn() -> I,
    I: Iterator<Item: Serialize>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

/// One file's entry of the document's `files`, with every function (spans located in the
/// file's text).
pub struct FileJson<'a> {
    file: &'a FileReport<'a>,
    lines: LineIndex,
    lifetimes: bool,
}

impl<'a> FileJson<'a> {
    pub fn new(file: &'a FileReport<'a>) -> FileJson<'a> {
        FileJson {
            file,
            lines: LineIndex::new(file.text),
            lifetimes: true,
        }
    }

    /// Leaves out every function's `lifetimes` (`plan --emit json` without `--lifetimes`): on
    /// large trees half the document's bytes.
    pub fn without_lifetimes(self) -> FileJson<'a> {
        FileJson {
            lifetimes: false,
            ..self
        }
    }
}

impl Serialize for FileJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let file = self.file;
        let failed = file.error.is_some()
            || file
                .functions
                .iter()
                .any(|f| matches!(f, FunctionEntry::Failed(_)));
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("path", file.path)?;
        map.serialize_entry("status", if failed { "failed" } else { "planned" })?;
        match &file.error {
            None => map.serialize_entry("diagnostics", &[(); 0])?,
            Some(FileError::Parse(diagnostics)) => map.serialize_entry(
                "diagnostics",
                &Array(|| {
                    diagnostics
                        .iter()
                        .map(|d| DiagnosticJson::new(d, file.text, &self.lines))
                }),
            )?,
            Some(FileError::Unreadable(message)) => {
                map.serialize_entry("diagnostics", &[UnreadableJson(message)])?
            }
        }
        let functions = Array(|| {
            file.functions.iter().map(|entry| FunctionJson {
                entry,
                text: file.text,
                lines: &self.lines,
                lifetimes: self.lifetimes,
            })
        });
        map.serialize_entry("functions", &functions)?;
        map.end()
    }
}

/// A file that could not be read, as a diagnostic without a place.
struct UnreadableJson<'a>(&'a str);

impl Serialize for UnreadableJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("code", codes::UNREADABLE)?;
        map.serialize_entry("severity", "error")?;
        map.serialize_entry("message", self.0)?;
        map.serialize_entry("line", &())?;
        map.serialize_entry("col", &())?;
        map.end()
    }
}

struct FunctionJson<'a> {
    entry: &'a FunctionEntry<'a>,
    text: &'a str,
    lines: &'a LineIndex,
    lifetimes: bool,
}

impl Serialize for FunctionJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (text, lines) = (self.text, self.lines);
        let located = move |d| DiagnosticJson::new(d, text, lines);
        let function = match self.entry {
            FunctionEntry::Planned(function) => function,
            FunctionEntry::Failed(failed) => {
                let mut map = serializer.serialize_map(Some(4))?;
                map.serialize_entry("name", failed.name)?;
                map.serialize_entry("status", "failed")?;
                map.serialize_entry("failure", failed.failure)?;
                let diagnostics = Array(|| failed.diagnostics.iter().map(located));
                map.serialize_entry("diagnostics", &diagnostics)?;
                return map.end();
            }
        };
        let report = function.report;
        // The source line of statement `n`, where the report knows it.
        let line_of = |n: u32| {
            report
                .statement_spans
                .get(n as usize)
                .map(|span| lines.line(span.start))
        };
        let digest = blake3::Hash::from_bytes(function.digest).to_hex();
        let mut map = serializer.serialize_map(Some(11))?;
        map.serialize_entry("name", function.name)?;
        map.serialize_entry("status", "planned")?;
        map.serialize_entry("digest", digest.as_str())?;
        map.serialize_entry("cached", &function.cached)?;
        map.serialize_entry("spaces", &Array(|| report.spaces.iter().map(SpaceJson)))?;
        let removed = Array(|| report.removed_allocs.iter().map(|a| a.as_str()));
        map.serialize_entry("removed_allocs", &removed)?;
        let moves = Array(|| {
            report.inserted_moves.iter().map(|m| MoveJson {
                line: lines.line_col(text, m.span.start).line,
                dst: m.destination.as_str(),
                src: m.source.as_str(),
            })
        });
        map.serialize_entry("inserted_moves", &moves)?;
        let lifetimes = Array(|| {
            report.lifetimes.iter().map(|l| LifetimeJson {
                var: l.var.as_str(),
                space: l.space.name(),
                size: l.size,
                def: l.def,
                last_use: l.last,
                def_line: line_of(l.def),
                last_use_line: line_of(l.last),
            })
        });
        if self.lifetimes {
            map.serialize_entry("lifetimes", &lifetimes)?;
        }
        let diagnostics = Array(|| {
            report
                .diagnostics
                .iter()
                .filter(|d| !is_repair(d))
                .map(located)
        });
        map.serialize_entry("diagnostics", &diagnostics)?;
        let repairs = Array(|| {
            report
                .diagnostics
                .iter()
                .filter(|d| is_repair(d))
                .map(|d| DiagnosticJson {
                    with_hint: true,
                    ..located(d)
                })
        });
        map.serialize_entry("repairs", &repairs)?;
        map.end()
    }
}

struct SpaceJson<'a>(&'a SpaceReport);

impl Serialize for SpaceJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut map = serializer.serialize_map(Some(10))?;
        map.serialize_entry("space", s.space.name())?;
        map.serialize_entry("capacity", &s.capacity)?;
        map.serialize_entry("lower_bound", &s.lower_bound)?;
        map.serialize_entry("footprint", &s.footprint)?;
        map.serialize_entry("pypto_footprint", &s.pypto_footprint)?;
        map.serialize_entry("tiles", &s.tiles)?;
        map.serialize_entry("buffers_before", &s.buffers_before)?;
        map.serialize_entry("bytes_before", &s.bytes_before)?;
        map.serialize_entry("bytes_after", &s.bytes_after)?;
        map.serialize_entry("buffers", &Array(|| s.buffers.iter().map(BufferJson)))?;
        map.end()
    }
}

struct BufferJson<'a>(&'a BufferReport);

impl Serialize for BufferJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let b = self.0;
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("base", b.base.as_str())?;
        map.serialize_entry("size", &b.size)?;
        map.serialize_entry("offset", &b.offset)?;
        map.serialize_entry("pinned", &b.pinned)?;
        let members = Array(|| b.members.iter().map(|m| m.as_str()));
        map.serialize_entry("members", &members)?;
        map.end()
    }
}

#[derive(Serialize)]
struct MoveJson<'a> {
    line: u32,
    dst: &'a str,
    src: &'a str,
}

#[derive(Serialize)]
struct LifetimeJson<'a> {
    var: &'a str,
    space: &'a str,
    size: i64,
    def: u32,
    last_use: u32,
    def_line: Option<u32>,
    last_use_line: Option<u32>,
}

/// A located diagnostic: code, severity, message, line and col; the places it names too
/// (`related`: where a lost value was defined, what overwrote it), and for a repair its
/// `hint` (why PyPTO's decision is unsafe, step by step).
struct DiagnosticJson<'a> {
    d: &'a Diagnostic,
    text: &'a str,
    lines: &'a LineIndex,
    with_hint: bool,
}

impl<'a> DiagnosticJson<'a> {
    fn new(d: &'a Diagnostic, text: &'a str, lines: &'a LineIndex) -> DiagnosticJson<'a> {
        DiagnosticJson {
            d,
            text,
            lines,
            with_hint: false,
        }
    }
}

impl Serialize for DiagnosticJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (d, text, lines) = (self.d, self.text, self.lines);
        let pos = lines.line_col(text, d.span.start);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", d.code)?;
        map.serialize_entry("severity", d.severity.name())?;
        map.serialize_entry("message", &d.message)?;
        map.serialize_entry("line", &pos.line)?;
        map.serialize_entry("col", &pos.col)?;
        if !d.related.is_empty() {
            let related = Array(|| {
                d.related.iter().map(|r| {
                    let pos = lines.line_col(text, r.span.start);
                    RelatedJson {
                        message: &r.message,
                        line: pos.line,
                        col: pos.col,
                    }
                })
            });
            map.serialize_entry("related", &related)?;
        }
        if self.with_hint {
            map.serialize_entry("hint", &d.hint)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct RelatedJson<'a> {
    message: &'a str,
    line: u32,
    col: u32,
}

/// A located diagnostic as a value (see `DiagnosticJson`), for the documents that add to
/// it.
pub fn diagnostic_json(d: &Diagnostic, text: &str, lines: &LineIndex) -> Value {
    value_of(&DiagnosticJson::new(d, text, lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Related;
    use crate::ir::Span;

    /// An entry is printed as serde_json prints it pretty, every line indented two levels,
    /// at any depth and with empty arrays and objects.
    #[test]
    fn an_entry_is_the_pretty_print_indented_for_its_place() {
        let mut deep = serde_json::json!({"leaf": [], "empty": {}, "n": 1});
        for level in 0..30 {
            deep = serde_json::json!({"level": level, "inner": [deep, "s\n", null, {}]});
        }
        let pretty = serde_json::to_string_pretty(&deep).expect("printable");
        let expected = pretty.replace('\n', "\n    ");
        let printed = file_entry(&deep).expect("printable");
        assert_eq!(String::from_utf8(printed).expect("utf-8"), expected);
    }

    /// An entry starts with the head of its path, whatever the path holds, and a head and
    /// the rest of another path's entry are the entry.
    #[test]
    fn an_entry_is_its_paths_head_and_the_rest() {
        let paths = ["a.py", "dir/b \"q\"\\.py", "ü\n\t.py", ""];
        let entry = |path| {
            let file = FileReport {
                path,
                text: "",
                functions: Vec::new(),
                error: None,
            };
            file_entry(&FileJson::new(&file)).expect("printable")
        };
        let rest = |path| {
            let (entry, head) = (entry(path), entry_head(path).expect("printable"));
            assert!(entry.starts_with(&head), "{path:?}");
            entry[head.len()..].to_vec()
        };
        for path in paths {
            for other in paths {
                let mut spliced = entry_head(path).expect("printable");
                spliced.extend(rest(other));
                assert_eq!(spliced, entry(path), "{path:?} after {other:?}");
            }
        }
        assert_ne!(entry_variant(true), entry_variant(false));
    }

    /// The bytes of an entry with every kind of field, which the store keeps: a change to
    /// them must bump [`ENTRY_LAYOUT`] (and this digest), or a warm run would serve entries
    /// of the layout before.
    #[test]
    fn the_entry_layout_is_pinned() {
        use crate::ir::MemSpace;
        use crate::plan::{LifetimeReport, MoveReport};
        let text = "def k():\n    a = 1\n    b = a\n";
        let mut kept = Diagnostic::note(codes::OVERLAP_WITHOUT_LOSS, "kept", Span::new(13, 18));
        kept.related.push(Related {
            span: Span::new(4, 5),
            message: "there".into(),
        });
        let report = PlanReport {
            spaces: vec![SpaceReport {
                space: MemSpace::Vec,
                capacity: Some(4096),
                tiles: 2,
                buffers_before: 2,
                buffers_after: 1,
                bytes_before: 2048,
                bytes_after: 1024,
                lower_bound: 1024,
                footprint: 1024,
                pypto_footprint: Some(2048),
                buffers: vec![BufferReport {
                    base: "mem_vec_0".into(),
                    size: 1024,
                    offset: 0,
                    pinned: true,
                    members: vec!["a".into(), "b".into()],
                }],
                live: Vec::new(),
            }],
            removed_allocs: vec!["mem_vec_1".into()],
            inserted_moves: vec![MoveReport {
                destination: "b_mv".into(),
                source: "b".into(),
                span: Span::new(22, 27),
            }],
            lifetimes: vec![LifetimeReport {
                var: "a".into(),
                space: MemSpace::Vec,
                size: 1024,
                def: 0,
                last: 1,
            }],
            diagnostics: vec![
                kept,
                Diagnostic::warning(codes::TILE_KEEPS_OWN_BUFFER, "repaired", Span::new(22, 27))
                    .with_hint("why"),
            ],
            statement_spans: vec![Span::new(13, 18), Span::new(22, 27)],
        };
        let failure = [Diagnostic::error(
            codes::UNREADABLE,
            "refused",
            Span::new(0, 3),
        )];
        let file = FileReport {
            path: "k.py",
            text,
            functions: vec![
                FunctionEntry::Planned(FunctionReport {
                    name: "k",
                    digest: [7; 32],
                    report: &report,
                    cached: true,
                }),
                FunctionEntry::Failed(FailedFunction {
                    name: "f",
                    failure: "plan",
                    diagnostics: &failure,
                }),
            ],
            error: None,
        };
        let mut printed = file_entry(&FileJson::new(&file)).expect("printable");
        printed.extend(file_entry(&FileJson::new(&file).without_lifetimes()).expect("printable"));
        let digest = blake3::hash(&printed).to_hex();
        assert_eq!(
            digest.as_str(),
            "2ad62e3eafa96b2a1e3d93fd8a835adb25d19ba23c4d02103b7a4c469c35f39e",
            "an entry prints differently: bump ENTRY_LAYOUT and pin the new digest\n{}",
            String::from_utf8_lossy(&printed)
        );
    }

    /// The streamed document is the value's, printed pretty, byte for byte.
    #[test]
    fn the_streamed_document_is_the_printed_value() {
        let text = "x = 1\ny = (\n";
        let mut parse_error = Diagnostic::error(codes::UNREADABLE, "unclosed", Span::new(8, 9));
        parse_error.related.push(Related {
            span: Span::new(0, 1),
            message: "opened here".into(),
        });
        let parse_errors = [parse_error];
        let files = [
            FileReport {
                path: "a.py",
                text: "",
                functions: Vec::new(),
                error: Some(FileError::Unreadable("not UTF-8")),
            },
            FileReport {
                path: "b.py",
                text,
                functions: vec![FunctionEntry::Failed(FailedFunction {
                    name: "f",
                    failure: "plan",
                    diagnostics: &parse_errors,
                })],
                error: None,
            },
            FileReport {
                path: "c.py",
                text,
                functions: Vec::new(),
                error: Some(FileError::Parse(&parse_errors)),
            },
        ];
        for files in [&files[..0], &files[..]] {
            let value = plan_document("910b", "pypto", files);
            let printed = serde_json::to_string_pretty(&value).expect("printable");
            let entries = files
                .iter()
                .map(|f| file_entry(&FileJson::new(f)).expect("printable"));
            let streamed =
                write_plan_document(Vec::new(), "910b", "pypto", entries).expect("written");
            assert_eq!(String::from_utf8_lossy(&streamed), printed);
        }
    }
}
