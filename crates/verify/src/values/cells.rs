//! The abstract state of one region: sorted, disjoint cells of bytes, each with the values
//! it holds (and, in a focused pass, why a value it lost is gone).

use smallvec::SmallVec;

use memreuse_ir::VarId;

use super::facts::Place;
use super::violation::Cause;

/// The values a cell's bytes hold, sorted.
pub(super) type ValueSet = SmallVec<[VarId; 4]>;

#[derive(Debug, PartialEq)]
pub(super) struct Cell {
    pub(super) start: i64,
    pub(super) end: i64,
    pub(super) values: ValueSet,
    /// In a focused pass: why focus values are not here (none for a focus value that is, or
    /// never was).
    pub(super) causes: Causes,
}

/// Focus values and why each is missing, sorted by value.
pub(super) type Causes = Vec<(VarId, Cause)>;

impl Clone for Cell {
    /// The values copied at once: a derived `SmallVec` clone runs `extend`, value by value,
    /// and the interpretation copies the cells of every region an `if` or a loop touches.
    fn clone(&self) -> Cell {
        Cell {
            start: self.start,
            end: self.end,
            values: ValueSet::from_slice(&self.values),
            causes: self.causes.clone(),
        }
    }
}

impl Cell {
    pub(super) fn holds(&self, v: VarId) -> bool {
        self.values.binary_search(&v).is_ok()
    }
    pub(super) fn insert(&mut self, v: VarId) {
        if let Err(at) = self.values.binary_search(&v) {
            self.values.insert(at, v);
        }
    }
    pub(super) fn remove(&mut self, v: VarId) {
        if let Ok(at) = self.values.binary_search(&v) {
            self.values.remove(at);
        }
    }
    /// Whether the cell says nothing: no values and no cause; such cells are dropped.
    pub(super) fn is_blank(&self) -> bool {
        self.values.is_empty() && self.causes.is_empty()
    }
    pub(super) fn cause(&self, v: VarId) -> Option<Cause> {
        cause_in(&self.causes, v)
    }
    pub(super) fn set_cause(&mut self, v: VarId, cause: Option<Cause>) {
        set_cause_in(&mut self.causes, v, cause);
    }
}

pub(super) fn cell(start: i64, end: i64, values: ValueSet) -> Cell {
    Cell {
        start,
        end,
        values,
        causes: Causes::new(),
    }
}

fn cause_in(causes: &Causes, v: VarId) -> Option<Cause> {
    causes
        .binary_search_by_key(&v, |&(f, _)| f)
        .ok()
        .map(|i| causes[i].1)
}

pub(super) fn set_cause_in(causes: &mut Causes, v: VarId, cause: Option<Cause>) {
    match (causes.binary_search_by_key(&v, |&(f, _)| f), cause) {
        (Ok(i), Some(cause)) => causes[i].1 = cause,
        (Ok(i), None) => {
            causes.remove(i);
        }
        (Err(i), Some(cause)) => causes.insert(i, (v, cause)),
        (Err(_), None) => {}
    }
}

/// The bytes both lists cover, with the values both hold there.
pub(super) fn intersect_cells(a: &[Cell], b: &[Cell]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let (start, end) = (x.start.max(y.start), x.end.min(y.end));
        if start < end {
            let values: ValueSet = x.values.iter().copied().filter(|v| y.holds(*v)).collect();
            if !values.is_empty() {
                push_merged(&mut out, start, end, values, Causes::new());
            }
        }
        if x.end <= y.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The join of a focused pass: it also keeps, where a focus value is missing on either path,
/// the cause from the path that lost it.
pub(super) fn join_focused(a: &[Cell], b: &[Cell], foci: &[VarId]) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    let empty = ValueSet::new();
    // Sweep the union of both lists' boundaries; a gap holds nothing and has no cause.
    let mut pos = i64::MIN;
    loop {
        while a.get(i).is_some_and(|c| c.end <= pos) {
            i += 1;
        }
        while b.get(j).is_some_and(|c| c.end <= pos) {
            j += 1;
        }
        let (ca, cb) = (a.get(i), b.get(j));
        let start = match (ca, cb) {
            (None, None) => break,
            (Some(x), None) => x.start,
            (None, Some(y)) => y.start,
            (Some(x), Some(y)) => x.start.min(y.start),
        }
        .max(pos);
        let in_a = ca.filter(|c| c.start <= start);
        let in_b = cb.filter(|c| c.start <= start);
        let end = [
            in_a.map(|c| c.end),
            in_b.map(|c| c.end),
            ca.filter(|c| c.start > start).map(|c| c.start),
            cb.filter(|c| c.start > start).map(|c| c.start),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(i64::MAX);
        let va = in_a.map_or(&empty, |c| &c.values);
        let vb = in_b.map_or(&empty, |c| &c.values);
        let values: ValueSet = va.iter().copied().filter(|v| vb.contains(v)).collect();
        let mut causes = Causes::new();
        for &f in foci {
            let (cause_a, cause_b) = (in_a.and_then(|c| c.cause(f)), in_b.and_then(|c| c.cause(f)));
            let cause = match (va.contains(&f), vb.contains(&f)) {
                (true, true) => None,
                (true, false) => cause_b,
                (false, true) => cause_a,
                (false, false) => cause_a.or(cause_b),
            };
            if let Some(cause) = cause {
                causes.push((f, cause));
            }
        }
        if !(values.is_empty() && causes.is_empty()) {
            push_merged(&mut out, start, end, values, causes);
        }
        pos = end;
    }
    out
}

/// Appends `[start, end)`, merged into the last cell when it continues it with equal contents.
pub(super) fn push_merged(
    out: &mut Vec<Cell>,
    start: i64,
    end: i64,
    values: ValueSet,
    causes: Causes,
) {
    if let Some(last) = out.last_mut()
        && last.end == start
        && last.values == values
        && last.causes == causes
    {
        last.end = end;
        return;
    }
    out.push(Cell {
        start,
        end,
        values,
        causes,
    });
}

/// Whether two lists of cells hold the same values everywhere (causes aside).
pub(super) fn same_cells(a: &[Cell], b: &[Cell]) -> bool {
    let same = |x: &Cell, y: &Cell| x.start == y.start && x.end == y.end && x.values == y.values;
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)) {
        return true;
    }
    // Equal contents may be cut into cells differently (focused passes keep causes apart).
    holding(a) == holding(b)
}

/// The maximal runs of bytes holding the same non-empty value set.
fn holding(cells: &[Cell]) -> Vec<(i64, i64, &ValueSet)> {
    let mut runs: Vec<(i64, i64, &ValueSet)> = Vec::new();
    for c in cells.iter().filter(|c| !c.values.is_empty()) {
        match runs.last_mut() {
            Some(last) if last.1 == c.start && *last.2 == c.values => last.1 = c.end,
            _ => runs.push((c.start, c.end, &c.values)),
        }
    }
    runs
}

/// Splits cells so that none straddles `start` or `end`; returns the index range of the cells
/// inside `[start, end)`.
/// Replaces the contents of `[start, end)` by `value` alone (or by nothing), without causes:
/// what [`split_range`] and replacing the cells inside leave, cutting the cells met at the
/// range's ends in place instead of splitting them first.
pub(super) fn overwrite(cells: &mut Vec<Cell>, start: i64, end: i64, value: Option<VarId>) {
    let mut lo = cells.partition_point(|c| c.end <= start);
    let mut hi = lo + cells[lo..].partition_point(|c| c.start < end);
    if lo < hi && cells[lo].start < start {
        if cells[lo].end > end {
            // One cell holds the whole range: it keeps both sides.
            let mut above = cells[lo].clone();
            above.start = end;
            cells[lo].end = start;
            cells.insert(lo + 1, above);
            if let Some(v) = value {
                cells.insert(lo + 1, cell(start, end, SmallVec::from_elem(v, 1)));
            }
            return;
        }
        cells[lo].end = start;
        lo += 1;
    }
    if lo < hi && cells[hi - 1].end > end {
        cells[hi - 1].start = end;
        hi -= 1;
    }
    match value {
        Some(v) if lo < hi => {
            cells[lo] = cell(start, end, SmallVec::from_elem(v, 1));
            cells.drain(lo + 1..hi);
        }
        Some(v) => cells.insert(lo, cell(start, end, SmallVec::from_elem(v, 1))),
        None => {
            cells.drain(lo..hi);
        }
    }
}

pub(super) fn split_range(cells: &mut Vec<Cell>, start: i64, end: i64) -> (usize, usize) {
    split_at(cells, start);
    split_at(cells, end);
    range_of(cells, start, end)
}

fn split_at(cells: &mut Vec<Cell>, pos: i64) {
    let at = cells.partition_point(|c| c.end <= pos);
    if let Some(cell) = cells.get(at)
        && cell.start < pos
    {
        let mut upper = cell.clone();
        upper.start = pos;
        cells[at].end = pos;
        cells.insert(at + 1, upper);
    }
}

/// The index range of the cells inside `[start, end)` (cells must not straddle its ends).
pub(super) fn range_of(cells: &[Cell], start: i64, end: i64) -> (usize, usize) {
    let lo = cells.partition_point(|c| c.end <= start);
    let hi = lo + cells[lo..].partition_point(|c| c.start < end);
    (lo, hi)
}

/// Adds empty cells over the bytes of `[start, end)` no cell covers (the cells must not
/// straddle its ends).
pub(super) fn fill_gaps(cells: &mut Vec<Cell>, start: i64, end: i64) {
    let (lo, hi) = range_of(cells, start, end);
    // Most ranges are a source's own cells, which leave no gap.
    let mut covered = start;
    let gapless = cells[lo..hi].iter().all(|c| {
        let continues = c.start == covered;
        covered = c.end;
        continues
    });
    if gapless && covered >= end {
        return;
    }
    let mut filled: Vec<Cell> = Vec::with_capacity(hi - lo + 1);
    let mut covered = start;
    for cell in &cells[lo..hi] {
        if cell.start > covered {
            filled.push(blank(covered, cell.start));
        }
        filled.push(cell.clone());
        covered = cell.end;
    }
    if covered < end {
        filled.push(blank(covered, end));
    }
    if filled.len() != hi - lo {
        cells.splice(lo..hi, filled);
    }
}

fn blank(start: i64, end: i64) -> Cell {
    Cell {
        start,
        end,
        values: ValueSet::new(),
        causes: Causes::new(),
    }
}

/// [`normalize`] over the cells of `p` and one neighbour on each side.
pub(super) fn normalize_around(cells: &mut Vec<Cell>, p: Place) {
    let (lo, hi) = range_of(cells, p.start, p.end);
    normalize(cells, lo.saturating_sub(1), (hi + 1).min(cells.len()));
}

/// Drops blank cells and merges equal neighbours among `cells[lo..hi]`, in place (it runs
/// after every rename, most often changing nothing).
pub(super) fn normalize(cells: &mut Vec<Cell>, lo: usize, hi: usize) {
    let mut kept = lo;
    for at in lo..hi {
        if cells[at].is_blank() {
            continue;
        }
        if kept > lo {
            let (done, rest) = cells.split_at_mut(at);
            let (last, cell) = (&mut done[kept - 1], &rest[0]);
            if last.end == cell.start && last.values == cell.values && last.causes == cell.causes {
                last.end = cell.end;
                continue;
            }
        }
        cells.swap(kept, at);
        kept += 1;
    }
    if kept < hi {
        cells.drain(kept..hi);
    }
}
