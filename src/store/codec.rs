//! The byte format of cached values: a fixed header (magic, schema version, kind, payload
//! length, CRC-32 of the stored payload) and the payload, a small hand-written encoding
//! (integers as LEB128 varints: most are small, and a plan's payload is compressed byte by byte).
//! Plan, detail and JSON payloads are compressed with LZ4 (printed IR and member names repeat
//! themselves a lot; this shrinks the store about five times); manifests and stamps are small
//! and read on every warm run, so they are stored as they are. Only this file knows the layout; a value that fails any check decodes to an
//! error, which callers treat as a miss. The checksum is checked before decompressing.

use std::borrow::Cow;

use compact_str::CompactString;

use crate::diagnostics::{Diagnostic, Related, Severity};
use crate::ir::codes;
use crate::ir::{FunctionSpacing, MemSpace, Name, ProgramHeader, Span};
use crate::plan::{
    BufferReport, GroupFit, LifetimeReport, LiveStep, MoveReport, PlanReport, SpaceFit, SpaceReport,
};

use super::entry::{
    Anchor, CachedPlan, Capacities, FileDetail, FileManifest, FunctionDetail, Kind, ManifestEntry,
    SpaceDetail, Stamp, Timeline,
};

const MAGIC: [u8; 2] = *b"MR";
/// Bumped whenever the payload layout changes; older values then fail to decode (a miss).
/// 10: integers as LEB128 varints (zigzag where signed), not fixed 4 or 8 bytes.
/// 11: each space's live bytes (`SpaceReport::live`).
/// 12: kind 5, a file's JSON entry ([`Kind::Json`]).
/// 13: a diagnostic's related places (a repair's notes), which warm runs dropped.
pub const SCHEMA_VERSION: u16 = 13;
const HEADER_LEN: usize = 2 + 2 + 1 + 1 + 4 + 4;

/// Why stored bytes are not a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("value header is damaged or from another schema")]
    Header,
    #[error("value checksum does not match its payload")]
    Checksum,
    #[error("value payload is truncated or malformed")]
    Payload,
}

pub fn encode_plan(plan: &CachedPlan) -> Vec<u8> {
    // The text is most of a plan; the report rarely needs more than a few kilobytes.
    let mut w = Writer(Vec::with_capacity(plan.planned_text.len() + 4096));
    w.str(&plan.planned_text);
    w.raw(&plan.planned_digest);
    report(&mut w, &plan.report, false);
    w.len(plan.anchors.len());
    for a in &plan.anchors {
        match *a {
            Anchor::Nowhere => w.u8(0),
            Anchor::At { node, offset, len } => {
                w.u8(1);
                w.u32(node);
                w.u32(offset);
                w.u32(len);
            }
        }
    }
    capacities(&mut w, &plan.capacities);
    frame(Kind::Plan, &w.0)
}

pub fn decode_plan(bytes: &[u8]) -> Result<CachedPlan, DecodeError> {
    let payload = unframe(Kind::Plan, bytes)?;
    let mut r = Reader::new(&payload);
    let planned_text = r.str()?.into();
    let planned_digest = r.digest()?;
    let report = read_report(&mut r, false)?;
    let anchors = r.list(|r| match r.u8()? {
        0 => Ok(Anchor::Nowhere),
        1 => Ok(Anchor::At {
            node: r.u32()?,
            offset: r.u32()?,
            len: r.u32()?,
        }),
        _ => Err(DecodeError::Payload),
    })?;
    let capacities = read_capacities(&mut r)?;
    r.finish()?;
    Ok(CachedPlan {
        planned_text,
        planned_digest,
        report,
        anchors,
        capacities,
    })
}

fn capacities(w: &mut Writer, capacities: &Capacities) {
    let Capacities::Fitting(fits) = capacities else {
        w.u8(0);
        return;
    };
    w.u8(1);
    w.len(fits.len());
    for fit in fits {
        w.str(fit.space.name());
        w.u8(fit.capacity_known as u8);
        w.i64(fit.needed);
        w.len(fit.groups.len());
        for g in &fit.groups {
            w.i64(g.slot);
            w.len(g.stages);
            w.len(g.depth);
        }
    }
}

fn read_capacities(r: &mut Reader) -> Result<Capacities, DecodeError> {
    match r.u8()? {
        0 => Ok(Capacities::Configured),
        1 => Ok(Capacities::Fitting(r.list(|r| {
            Ok(SpaceFit {
                space: r.space()?,
                capacity_known: r.bool()?,
                needed: r.i64()?,
                groups: r.list(|r| {
                    Ok(GroupFit {
                        slot: r.i64()?,
                        stages: r.count()?,
                        depth: r.count()?,
                    })
                })?,
            })
        })?)),
        _ => Err(DecodeError::Payload),
    }
}

pub fn encode_manifest(manifest: &FileManifest) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(&manifest.header.text);
    w.raw(&[match manifest.header.spacing {
        FunctionSpacing::BlankLine => 0,
        FunctionSpacing::Adjacent => 1,
    }]);
    w.len(manifest.functions.len());
    for f in &manifest.functions {
        w.str(&f.name);
        w.raw(&f.digest);
        w.raw(&f.planned_digest);
        report(&mut w, &f.report, true);
        capacities(&mut w, &f.capacities);
    }
    frame(Kind::File, &w.0)
}

pub fn encode_detail(detail: &FileDetail) -> Vec<u8> {
    let mut w = Writer::default();
    w.len(detail.functions.len());
    for f in &detail.functions {
        w.str(&f.name);
        w.len(f.spaces.len());
        for space in &f.spaces {
            w.len(space.buffers.len());
            for b in &space.buffers {
                buffer(&mut w, b);
            }
            live(&mut w, &space.live);
        }
        w.names(&f.removed_allocs);
        match &f.timeline {
            None => w.u8(0),
            Some(timeline) => {
                w.u8(1);
                w.len(timeline.lifetimes.len());
                for l in &timeline.lifetimes {
                    lifetime(&mut w, l);
                }
                w.len(timeline.statement_spans.len());
                for &span in &timeline.statement_spans {
                    w.span(span);
                }
            }
        }
    }
    frame(Kind::Detail, &w.0)
}

pub fn decode_detail(bytes: &[u8]) -> Result<FileDetail, DecodeError> {
    let payload = unframe(Kind::Detail, bytes)?;
    let mut r = Reader::new(&payload);
    let functions = r.list(|r| {
        Ok(FunctionDetail {
            name: r.name()?,
            spaces: r.list(|r| {
                Ok(SpaceDetail {
                    buffers: r.list(read_buffer)?,
                    live: r.list(read_live_step)?,
                })
            })?,
            removed_allocs: r.names()?,
            timeline: match r.u8()? {
                0 => None,
                1 => Some(Timeline {
                    lifetimes: r.list(read_lifetime)?,
                    statement_spans: r.list(|r| r.span_if(true))?,
                }),
                _ => return Err(DecodeError::Payload),
            },
        })
    })?;
    r.finish()?;
    Ok(FileDetail { functions })
}

/// A JSON entry is its bytes (compressed about six times: its indentation repeats).
pub fn encode_json(entry: &[u8]) -> Vec<u8> {
    frame(Kind::Json, entry)
}

/// Appends the JSON entry to `out` (which a caller reuses: fresh memory for every entry was
/// a fifth of a warm run's time, in page faults).
pub fn decode_json_into(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let payload = stored_payload(Kind::Json, bytes)?;
    let (size, compressed) = payload
        .split_first_chunk::<4>()
        .ok_or(DecodeError::Payload)?;
    let size = u32::from_le_bytes(*size) as usize;
    let start = out.len();
    out.resize(start + size, 0);
    match lz4_flex::block::decompress_into(compressed, &mut out[start..]) {
        Ok(written) if written == size => Ok(()),
        _ => {
            out.truncate(start);
            Err(DecodeError::Payload)
        }
    }
}

pub fn encode_stamp(stamp: &Stamp) -> Vec<u8> {
    let mut w = Writer::default();
    w.i64(stamp.len as i64);
    w.raw(&stamp.modified_ns.to_le_bytes());
    w.raw(&stamp.changed_ns.to_le_bytes());
    w.i64(stamp.inode as i64);
    w.raw(&stamp.digest);
    frame(Kind::Stamp, &w.0)
}

pub fn decode_stamp(bytes: &[u8]) -> Result<Stamp, DecodeError> {
    let payload = unframe(Kind::Stamp, bytes)?;
    let mut r = Reader::new(&payload);
    let stamp = Stamp {
        len: r.i64()? as u64,
        modified_ns: i128::from_le_bytes(r.array()?),
        changed_ns: i128::from_le_bytes(r.array()?),
        inode: r.i64()? as u64,
        digest: r.digest()?,
    };
    r.finish()?;
    Ok(stamp)
}

pub fn decode_manifest(bytes: &[u8]) -> Result<FileManifest, DecodeError> {
    let payload = unframe(Kind::File, bytes)?;
    let mut r = Reader::new(&payload);
    let text = r.string()?;
    let spacing = match r.array::<1>()? {
        [0] => FunctionSpacing::BlankLine,
        [1] => FunctionSpacing::Adjacent,
        _ => return Err(DecodeError::Payload),
    };
    let header = ProgramHeader {
        text: text.into(),
        spacing,
    };
    let functions = r.list(|r| {
        Ok(ManifestEntry {
            name: r.name()?,
            digest: r.digest()?,
            planned_digest: r.digest()?,
            report: read_report(r, true)?,
            capacities: read_capacities(r)?,
        })
    })?;
    r.finish()?;
    Ok(FileManifest { header, functions })
}

/// Checks the header and checksum of any value (without decoding it); the kind it is.
pub fn check(bytes: &[u8]) -> Result<Kind, DecodeError> {
    let kind = match bytes.get(4) {
        Some(1) => Kind::Plan,
        Some(2) => Kind::File,
        Some(3) => Kind::Stamp,
        Some(4) => Kind::Detail,
        Some(5) => Kind::Json,
        _ => return Err(DecodeError::Header),
    };
    stored_payload(kind, bytes).map(|_| kind)
}

fn compressed(kind: Kind) -> bool {
    matches!(kind, Kind::Plan | Kind::Detail | Kind::Json)
}

fn frame(kind: Kind, payload: &[u8]) -> Vec<u8> {
    let compressed_payload;
    let payload = if compressed(kind) {
        compressed_payload = lz4_flex::compress_prepend_size(payload);
        &compressed_payload
    } else {
        payload
    };
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&SCHEMA_VERSION.to_le_bytes());
    out.push(kind as u8);
    out.push(0);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a value, decompressed, once its header and checksum hold.
fn unframe(kind: Kind, bytes: &[u8]) -> Result<Cow<'_, [u8]>, DecodeError> {
    let payload = stored_payload(kind, bytes)?;
    if !compressed(kind) {
        return Ok(Cow::Borrowed(payload));
    }
    lz4_flex::decompress_size_prepended(payload)
        .map(Cow::Owned)
        .map_err(|_| DecodeError::Payload)
}

/// The payload as stored (compressed), once the header and checksum hold.
fn stored_payload(kind: Kind, bytes: &[u8]) -> Result<&[u8], DecodeError> {
    let (header, payload) = bytes
        .split_at_checked(HEADER_LEN)
        .ok_or(DecodeError::Header)?;
    let word = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if header[..2] != MAGIC
        || header[2..4] != SCHEMA_VERSION.to_le_bytes()
        || header[4] != kind as u8
        || word(6) as usize != payload.len()
    {
        return Err(DecodeError::Header);
    }
    if word(10) != crc32fast::hash(payload) {
        return Err(DecodeError::Checksum);
    }
    Ok(payload)
}

/// A report; its spans only `with_spans` (plans keep them as anchors instead).
fn report(w: &mut Writer, report: &PlanReport, with_spans: bool) {
    w.len(report.spaces.len());
    for s in &report.spaces {
        w.str(s.space.name());
        w.option(s.capacity);
        w.len(s.tiles);
        w.len(s.buffers_before);
        w.len(s.buffers_after);
        w.i64(s.bytes_before);
        w.i64(s.bytes_after);
        w.i64(s.lower_bound);
        w.i64(s.footprint);
        w.option(s.pypto_footprint);
        w.len(s.buffers.len());
        for b in &s.buffers {
            buffer(w, b);
        }
        live(w, &s.live);
    }
    w.names(&report.removed_allocs);
    w.len(report.inserted_moves.len());
    for m in &report.inserted_moves {
        w.str(&m.destination);
        w.str(&m.source);
        if with_spans {
            w.span(m.span);
        }
    }
    w.len(report.lifetimes.len());
    for l in &report.lifetimes {
        lifetime(w, l);
    }
    w.len(report.diagnostics.len());
    for d in &report.diagnostics {
        w.u8(match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Hint => 2,
            Severity::Note => 3,
        });
        w.str(d.code);
        w.str(&d.message);
        if with_spans {
            w.span(d.span);
        }
        match &d.hint {
            Some(hint) => {
                w.u8(1);
                w.str(hint);
            }
            None => w.u8(0),
        }
        w.len(d.related.len());
        for related in &d.related {
            w.str(&related.message);
            if with_spans {
                w.span(related.span);
            }
        }
    }
    w.len(report.statement_spans.len());
    if with_spans {
        for &span in &report.statement_spans {
            w.span(span);
        }
    }
}

fn buffer(w: &mut Writer, b: &BufferReport) {
    w.str(&b.base);
    w.i64(b.size);
    w.i64(b.offset);
    w.u8(b.pinned as u8);
    w.names(&b.members);
}

fn read_buffer(r: &mut Reader) -> Result<BufferReport, DecodeError> {
    Ok(BufferReport {
        base: r.name()?,
        size: r.i64()?,
        offset: r.i64()?,
        pinned: r.bool()?,
        members: r.names()?,
    })
}

fn live(w: &mut Writer, steps: &[LiveStep]) {
    w.len(steps.len());
    for step in steps {
        w.u32(step.at);
        w.i64(step.bytes);
    }
}

fn read_live_step(r: &mut Reader) -> Result<LiveStep, DecodeError> {
    Ok(LiveStep {
        at: r.u32()?,
        bytes: r.i64()?,
    })
}

fn lifetime(w: &mut Writer, l: &LifetimeReport) {
    w.str(&l.var);
    w.str(l.space.name());
    w.i64(l.size);
    w.u32(l.def);
    w.u32(l.last);
}

fn read_lifetime(r: &mut Reader) -> Result<LifetimeReport, DecodeError> {
    Ok(LifetimeReport {
        var: r.name()?,
        space: r.space()?,
        size: r.i64()?,
        def: r.u32()?,
        last: r.u32()?,
    })
}

fn read_report(r: &mut Reader, with_spans: bool) -> Result<PlanReport, DecodeError> {
    let spaces = r.list(|r| {
        Ok(SpaceReport {
            space: r.space()?,
            capacity: r.option()?,
            // Counts, not lengths of what follows: a manifest drops the buffers, so a space
            // of 1,100 tiles may well be followed by fewer bytes.
            tiles: r.count()?,
            buffers_before: r.count()?,
            buffers_after: r.count()?,
            bytes_before: r.i64()?,
            bytes_after: r.i64()?,
            lower_bound: r.i64()?,
            footprint: r.i64()?,
            pypto_footprint: r.option()?,
            buffers: r.list(read_buffer)?,
            live: r.list(read_live_step)?,
        })
    })?;
    let removed_allocs = r.names()?;
    let inserted_moves = r.list(|r| {
        Ok(MoveReport {
            destination: r.name()?,
            source: r.name()?,
            span: r.span_if(with_spans)?,
        })
    })?;
    let lifetimes = r.list(read_lifetime)?;
    let diagnostics = r.list(|r| {
        let severity = match r.u8()? {
            0 => Severity::Error,
            1 => Severity::Warning,
            2 => Severity::Hint,
            3 => Severity::Note,
            _ => return Err(DecodeError::Payload),
        };
        // Codes are `&'static str`: a stored one is mapped back to the table's.
        let code = codes::known(&r.string()?).ok_or(DecodeError::Payload)?;
        let message = r.string()?;
        let span = r.span_if(with_spans)?;
        let hint = if r.bool()? { Some(r.string()?) } else { None };
        let related = r.list(|r| {
            Ok(Related {
                message: r.string()?,
                span: r.span_if(with_spans)?,
            })
        })?;
        Ok(Diagnostic {
            severity,
            code,
            message,
            span,
            hint,
            related,
        })
    })?;
    let statements = r.len()?;
    let mut statement_spans = Vec::with_capacity(statements.min(MAX_RESERVED_ITEMS));
    for _ in 0..statements {
        statement_spans.push(r.span_if(with_spans)?);
    }
    Ok(PlanReport {
        spaces,
        removed_allocs,
        inserted_moves,
        lifetimes,
        diagnostics,
        statement_spans,
    })
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// LEB128: seven bits a byte, low first, the high bit set on all but the last.
    fn uvarint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn u32(&mut self, v: u32) {
        self.uvarint(v.into());
    }
    /// Zigzag, so that small negative numbers take few bytes too.
    fn i64(&mut self, v: i64) {
        self.uvarint(((v << 1) ^ (v >> 63)) as u64);
    }
    fn len(&mut self, v: usize) {
        self.uvarint(v as u64);
    }
    fn option(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.i64(v);
            }
            None => self.u8(0),
        }
    }
    fn raw(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.raw(s.as_bytes());
    }
    fn span(&mut self, span: Span) {
        self.u32(span.start);
        self.u32(span.end);
    }
    fn names(&mut self, names: &[Name]) {
        self.len(names.len());
        for n in names {
            self.str(n);
        }
    }
}

/// The most items [`Reader::list`] reserves room for before reading them.
const MAX_RESERVED_ITEMS: usize = 4096;

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let (head, rest) = self.bytes.split_at_checked(n).ok_or(DecodeError::Payload)?;
        self.bytes = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        self.take(N)?.try_into().map_err(|_| DecodeError::Payload)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }
    fn bool(&mut self) -> Result<bool, DecodeError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::Payload),
        }
    }
    fn uvarint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            // The tenth byte holds the 64th bit alone.
            if shift == 63 && byte > 1 {
                return Err(DecodeError::Payload);
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::Payload)
    }
    fn u32(&mut self) -> Result<u32, DecodeError> {
        u32::try_from(self.uvarint()?).map_err(|_| DecodeError::Payload)
    }
    fn i64(&mut self) -> Result<i64, DecodeError> {
        let zigzag = self.uvarint()?;
        Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64))
    }
    fn option(&mut self) -> Result<Option<i64>, DecodeError> {
        match self.bool()? {
            true => Ok(Some(self.i64()?)),
            false => Ok(None),
        }
    }
    /// A count of things that need not follow in the payload.
    fn count(&mut self) -> Result<usize, DecodeError> {
        usize::try_from(self.uvarint()?).map_err(|_| DecodeError::Payload)
    }
    fn len(&mut self) -> Result<usize, DecodeError> {
        let n = usize::try_from(self.uvarint()?).map_err(|_| DecodeError::Payload)?;
        // A length can never exceed the bytes left: rejects garbage before allocating for it.
        if n > self.bytes.len() {
            return Err(DecodeError::Payload);
        }
        Ok(n)
    }
    fn span_if(&mut self, present: bool) -> Result<Span, DecodeError> {
        if !present {
            return Ok(Span::default());
        }
        Ok(Span {
            start: self.u32()?,
            end: self.u32()?,
        })
    }
    fn digest(&mut self) -> Result<[u8; 32], DecodeError> {
        self.array()
    }
    fn str(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| DecodeError::Payload)
    }
    fn string(&mut self) -> Result<String, DecodeError> {
        self.str().map(str::to_string)
    }
    fn name(&mut self) -> Result<Name, DecodeError> {
        self.str().map(CompactString::from)
    }
    fn names(&mut self) -> Result<Vec<Name>, DecodeError> {
        self.list(|r| r.name())
    }
    fn space(&mut self) -> Result<MemSpace, DecodeError> {
        MemSpace::from_name(self.str()?).ok_or(DecodeError::Payload)
    }
    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Reader<'a>) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let n = self.len()?;
        // Collecting the items' results would grow the vector from empty (a fallible
        // iterator's size hint is 0): reserved up front, with at most a few pages' worth
        // for a length that a damaged value could have inflated.
        let mut items = Vec::with_capacity(n.min(MAX_RESERVED_ITEMS));
        for _ in 0..n {
            items.push(item(self)?);
        }
        Ok(items)
    }
    fn finish(&self) -> Result<(), DecodeError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::Payload)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_with(anchors: Vec<Anchor>) -> CachedPlan {
        CachedPlan {
            planned_text: "    @pl.function\n    def f():\n        pass\n".into(),
            planned_digest: [7; 32],
            report: PlanReport::default(),
            anchors,
            capacities: Capacities::Configured,
        }
    }

    #[test]
    fn capacities_round_trip() {
        let fitting = Capacities::Fitting(vec![
            SpaceFit {
                space: MemSpace::Vec,
                capacity_known: true,
                needed: 4096,
                groups: vec![GroupFit {
                    slot: 1024,
                    stages: 3,
                    depth: 2,
                }],
            },
            SpaceFit {
                space: MemSpace::Mat,
                capacity_known: false,
                needed: 0,
                groups: Vec::new(),
            },
        ]);
        let mut plan = plan_with(Vec::new());
        plan.capacities = fitting.clone();
        assert_eq!(decode_plan(&encode_plan(&plan)), Ok(plan));
        let manifest = FileManifest {
            header: ProgramHeader {
                text: "class P:".into(),
                spacing: FunctionSpacing::BlankLine,
            },
            functions: vec![ManifestEntry {
                name: "f".into(),
                digest: [1; 32],
                planned_digest: [2; 32],
                report: PlanReport::default(),
                capacities: fitting,
            }],
        };
        assert_eq!(decode_manifest(&encode_manifest(&manifest)), Ok(manifest));
    }

    #[test]
    fn file_detail_round_trips() {
        let detail = FileDetail {
            functions: vec![
                FunctionDetail {
                    name: "f".into(),
                    spaces: vec![
                        SpaceDetail {
                            buffers: vec![BufferReport {
                                base: "mem_vec_0".into(),
                                size: 4096,
                                offset: 512,
                                pinned: true,
                                members: vec!["a".into(), "b".into()],
                            }],
                            live: vec![
                                LiveStep { at: 2, bytes: 4096 },
                                LiveStep { at: 9, bytes: 0 },
                            ],
                        },
                        SpaceDetail {
                            buffers: Vec::new(),
                            live: Vec::new(),
                        },
                    ],
                    removed_allocs: vec!["mem_vec_1".into()],
                    timeline: Some(Timeline {
                        lifetimes: vec![LifetimeReport {
                            var: "a".into(),
                            space: MemSpace::Acc,
                            size: 64,
                            def: 2,
                            last: 9,
                        }],
                        statement_spans: vec![Span::new(10, 42), Span::default()],
                    }),
                },
                FunctionDetail {
                    name: "g".into(),
                    spaces: Vec::new(),
                    removed_allocs: Vec::new(),
                    timeline: None,
                },
            ],
        };
        let bytes = encode_detail(&detail);
        assert_eq!(check(&bytes), Ok(Kind::Detail));
        assert_eq!(decode_detail(&bytes), Ok(detail));
        assert_eq!(decode_manifest(&bytes), Err(DecodeError::Header));
    }

    #[test]
    fn json_entries_round_trip_compressed() {
        let entry = format!("{{{}\n}}", "\n          \"cached\": true,".repeat(200));
        let bytes = encode_json(entry.as_bytes());
        assert!(bytes.len() * 4 < entry.len(), "{} B stored", bytes.len());
        assert_eq!(check(&bytes), Ok(Kind::Json));
        let mut out = b"head".to_vec();
        assert_eq!(decode_json_into(&bytes, &mut out), Ok(()));
        assert_eq!(out, [b"head", entry.as_bytes()].concat());
        assert_eq!(decode_detail(&bytes), Err(DecodeError::Header));
        let stamp = encode_stamp(&Stamp {
            len: 1,
            modified_ns: 2,
            changed_ns: 3,
            inode: 4,
            digest: [5; 32],
        });
        assert_eq!(decode_json_into(&stamp, &mut out), Err(DecodeError::Header));
        // A size that is not the entry's: refused, `out` as it was.
        let mut wrong = bytes.clone();
        wrong[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&(entry.len() as u32 + 1).to_le_bytes());
        let crc = crc32fast::hash(&wrong[HEADER_LEN..]).to_le_bytes();
        wrong[10..14].copy_from_slice(&crc);
        let mut out = b"head".to_vec();
        assert_eq!(
            decode_json_into(&wrong, &mut out),
            Err(DecodeError::Payload)
        );
        assert_eq!(out, b"head");
    }

    #[test]
    fn anchors_round_trip_nowhere_included() {
        let plan = plan_with(vec![
            Anchor::At {
                node: 3,
                offset: 1,
                len: 4,
            },
            Anchor::Nowhere,
            Anchor::At {
                node: u32::MAX,
                offset: 0,
                len: 0,
            },
        ]);
        assert_eq!(decode_plan(&encode_plan(&plan)), Ok(plan));
    }

    #[test]
    fn integers_round_trip_at_their_extremes() {
        let signed = [
            0,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            i64::from(i32::MAX),
            i64::MIN,
            i64::MAX,
        ];
        let unsigned = [0, 127, 128, 16_383, 16_384, u32::MAX];
        let mut w = Writer::default();
        for &v in &signed {
            w.i64(v);
        }
        for &v in &unsigned {
            w.u32(v);
        }
        w.len(usize::MAX);
        // One byte each below 64 (signed) and 128 (unsigned).
        assert_eq!(w.0[..3], [0, 2, 1]);
        let mut r = Reader::new(&w.0);
        for &v in &signed {
            assert_eq!(r.i64(), Ok(v));
        }
        for &v in &unsigned {
            assert_eq!(r.u32(), Ok(v));
        }
        assert_eq!(r.count(), Ok(usize::MAX));
        r.finish().expect("nothing left");
        // Too long, or past 64 bits: refused, not wrapped.
        assert_eq!(Reader::new(&[0x80; 11]).i64(), Err(DecodeError::Payload));
        let mut past = vec![0xff; 9];
        past.push(0x02);
        assert_eq!(Reader::new(&past).i64(), Err(DecodeError::Payload));
        // A u32 field holding more than 32 bits.
        let mut w = Writer::default();
        w.i64(i64::MAX);
        assert_eq!(Reader::new(&w.0).u32(), Err(DecodeError::Payload));
    }

    /// A value written by the schema before (fixed-width integers) is refused by its header,
    /// never read as this schema's.
    #[test]
    fn a_value_of_the_previous_schema_is_refused() {
        let mut bytes = encode_plan(&plan_with(vec![Anchor::Nowhere]));
        bytes[2..4].copy_from_slice(&(SCHEMA_VERSION - 1).to_le_bytes());
        assert_eq!(decode_plan(&bytes), Err(DecodeError::Header));
    }
}
