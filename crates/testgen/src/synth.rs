//! A deterministic generator of synthetic post-InitMemRef programs, as text.
//!
//! The output is what PyPTO's printer would emit after `InitMemRef` (rules §1.8, §3): every
//! assignment annotated, allocs hoisted to the top of each body in first-seen order, bases named
//! `mem_<space>_<N>` from one counter per function that return variables also advance. It feeds
//! parse and planning benchmarks, property tests and the large example kernels. The generator is
//! pure and seeded: the same [`SynthConfig`] always gives the same bytes.
//!
//! By default it emits only shapes PyPTO's frontend produces and PyPTO's plan handles, with
//! Step 0 and without (`tests/synth_plans_verify.rs`). [`Shapes::WithUpstreamHazards`] also
//! emits the shapes on which PyPTO's own plan is wrong, pinned in `tests/data/verify_upstream/`
//! (`tests/checkers_agree.rs` plans them and requires both checkers to agree).

use std::fmt::Write;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthConfig {
    /// InCore kernels in the program; with two or more, an Orchestration `main` calls them all.
    pub functions: usize,
    /// Tile definitions (tile-typed assignments) per kernel; the generator stops at the first
    /// statement boundary at or past this count.
    pub tiles_per_function: usize,
    /// `Some(k)`: operands come from the `k` most recent tiles, which bounds how many tiles are
    /// live at once. `None`: operands come from every earlier tile, so the live count grows with
    /// the function (the dense family).
    pub max_live: Option<usize>,
    pub seed: u64,
    /// Also emit loops with carries, pipelined loops with stage tags, ifs with phis, scope
    /// blocks, views, bare aliases, tuple-returning ops, scalar assignments and evals.
    pub control_flow: bool,
}

impl Default for SynthConfig {
    fn default() -> SynthConfig {
        SynthConfig {
            functions: 1,
            tiles_per_function: 100,
            max_live: Some(8),
            seed: 0,
            control_flow: true,
        }
    }
}

/// Which program shapes the generator may emit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shapes {
    /// Only shapes PyPTO's plan handles: every plan of the generated text is sound.
    #[default]
    PyptoSafe,
    /// Also the shapes of `tests/data/verify_upstream/`, on which PyPTO's plan can lose a
    /// value: loop inits read inside or after their loop (sometimes through a view of a live
    /// tile), nested loops initialised by the enclosing iter arg whose result the outer loop
    /// yields, `if`s whose then arm yields a pre-if value, and tuple items nobody reads. And the
    /// shapes the repairs must carry along or leave to the input: `tile.fillpad_inplace` of a
    /// carry's next value, an arm's value, an `if` result or a loop result (its output reuses
    /// input 0), and accumulator `if`s (one arm initialises with `tile.matmul`, the other
    /// accumulates into a pre-if Acc tile with `tile.matmul_acc`), whose pre-if tile is now and
    /// then read later: the input then overwrites it itself, which no plan can undo
    /// (`MR-W004`).
    WithUpstreamHazards,
}

/// The text of one `@pl.program` named `name`, with the shapes PyPTO's plan handles.
pub fn program_text(name: &str, cfg: &SynthConfig) -> String {
    program_text_with(name, cfg, Shapes::PyptoSafe)
}

/// The text of one `@pl.program` named `name`, with the given shapes.
pub fn program_text_with(name: &str, cfg: &SynthConfig, shapes: Shapes) -> String {
    let mut out = format!(
        "# pypto.program: {name}\nimport pypto.language as pl\n\n@pl.program\nclass {name}:\n"
    );
    let mut rng = SplitMix64(cfg.seed);
    for index in 0..cfg.functions {
        if index > 0 {
            out.push('\n');
        }
        let function_seed = rng.next_u64();
        FunctionGen::new(cfg, shapes, function_seed).emit(&format!("kernel_{index}"), &mut out);
    }
    if cfg.functions >= 2 {
        out.push('\n');
        emit_orchestration(cfg.functions, &mut out);
    }
    out
}

/// The global tensors every kernel reads and writes: `[ROWS, COLS]` in row-major order.
const ROWS: u64 = 4096;
const COLS: u64 = 256;

/// Shapes of the Vec tiles the generator loads (rows, cols); all are at most 32 KiB in FP32.
const VEC_SHAPES: &[(u64, u64)] = &[
    (8, 64),
    (16, 64),
    (16, 128),
    (32, 64),
    (32, 128),
    (64, 64),
    (64, 128),
    (8, 256),
];

/// Side lengths of the matmul operands (M, K and N are drawn from these).
const CUBE_DIMS: &[u64] = &[16, 32, 64];

/// Random probes for a same-layout partner in the dense family.
const DENSE_PARTNER_TRIES: usize = 8;

/// Blocks nest at most this deep, like real kernels (a loop holding an if).
const MAX_BLOCK_DEPTH: usize = 2;

fn kernel_params() -> String {
    let mut params = String::new();
    for (index, (name, dtype, direction)) in [
        ("x_f32", DType::Fp32, ""),
        ("x_f16", DType::Fp16, ""),
        ("y_out", DType::Fp32, "Out"),
    ]
    .into_iter()
    .enumerate()
    {
        let tensor = tensor_type(dtype, index);
        if direction.is_empty() {
            let _ = write!(params, ", {name}: {tensor}");
        } else {
            let _ = write!(params, ", {name}: pl.{direction}[{tensor}]");
        }
    }
    params.push_str(", flag: pl.Scalar[pl.INT64]");
    params
}

/// A `[ROWS, COLS]` tensor type on the DDR MemRef numbered `number`.
fn tensor_type(dtype: DType, number: usize) -> String {
    format!(
        "pl.Tensor[[{ROWS}, {COLS}], pl.{}, pl.MemRef(\"mem_ddr_{number}\", pl.const(0, pl.INT64), {})]",
        dtype.name(),
        ROWS * COLS * dtype.bytes()
    )
}

fn emit_orchestration(kernels: usize, out: &mut String) {
    let _ = writeln!(
        out,
        "    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self{}) -> pl.Tensor[[{ROWS}, {COLS}], pl.FP32]:",
        kernel_params()
    );
    // Three tensor parameters take MemRef numbers 0..=2; each call result takes the next one.
    let mut output = "y_out".to_string();
    for index in 0..kernels {
        let result = format!("y_{index}");
        let _ = writeln!(
            out,
            "        {result}: {} = self.kernel_{index}(x_f32, x_f16, {output}, flag)",
            tensor_type(DType::Fp32, 3 + index)
        );
        output = result;
    }
    let _ = writeln!(out, "        return {output}");
}

/// splitmix64: tiny, fast and good enough to drive a generator (the tests that draw their
/// own case parameters use it too).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DType {
    Fp32,
    Fp16,
    Bf16,
    Int32,
}

impl DType {
    fn name(self) -> &'static str {
        match self {
            DType::Fp32 => "FP32",
            DType::Fp16 => "FP16",
            DType::Bf16 => "BF16",
            DType::Int32 => "INT32",
        }
    }

    fn bytes(self) -> u64 {
        match self {
            DType::Fp32 | DType::Int32 => 4,
            DType::Fp16 | DType::Bf16 => 2,
        }
    }

    fn is_float(self) -> bool {
        self != DType::Int32
    }

    /// The same-width type `tile.reinterpret_view` may switch to (keeps shape and bytes).
    fn reinterpreted(self) -> DType {
        match self {
            DType::Fp32 => DType::Int32,
            DType::Int32 => DType::Fp32,
            DType::Fp16 => DType::Bf16,
            DType::Bf16 => DType::Fp16,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Vec,
    Mat,
    Left,
    Right,
    Acc,
}

impl Space {
    fn name(self) -> &'static str {
        match self {
            Space::Vec => "Vec",
            Space::Mat => "Mat",
            Space::Left => "Left",
            Space::Right => "Right",
            Space::Acc => "Acc",
        }
    }

    fn lowercase(self) -> &'static str {
        match self {
            Space::Vec => "vec",
            Space::Mat => "mat",
            Space::Left => "left",
            Space::Right => "right",
            Space::Acc => "acc",
        }
    }
}

/// Byte size InitMemRef gives a `[rows, cols]` tile (rules §2.2): Acc rounds M up to the L0C
/// alignment of an unconfigured backend (32 for INT32, else 16).
fn tile_bytes(rows: u64, cols: u64, dtype: DType, space: Space) -> u64 {
    let rows = match (space, dtype) {
        (Space::Acc, DType::Int32) => rows.next_multiple_of(32),
        (Space::Acc, _) => rows.next_multiple_of(16),
        _ => rows,
    };
    rows * cols * dtype.bytes()
}

/// Offsets print as upstream does: InitMemRef's roots are INT64 constants, views are INDEX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Offset {
    Root,
    View(u64),
}

impl Offset {
    fn bytes(self) -> u64 {
        match self {
            Offset::Root => 0,
            Offset::View(bytes) => bytes,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct MemRef {
    base: String,
    offset: Offset,
    size: u64,
}

/// A tile variable as the generator tracks it.
#[derive(Clone, Debug)]
struct Tile {
    name: String,
    rows: u64,
    cols: u64,
    dtype: DType,
    space: Space,
    memref: MemRef,
}

impl Tile {
    fn write_type(&self, out: &mut String) {
        let _ = write!(
            out,
            "pl.Tile[[{}, {}], pl.{}, pl.MemRef({}, ",
            self.rows,
            self.cols,
            self.dtype.name(),
            self.memref.base
        );
        match self.memref.offset {
            Offset::Root => out.push_str("pl.const(0, pl.INT64)"),
            Offset::View(bytes) => {
                let _ = write!(out, "{bytes}");
            }
        }
        let _ = write!(
            out,
            ", {}), pl.Mem.{}]",
            self.memref.size,
            self.space.name()
        );
    }

    fn same_layout(&self, other: &Tile) -> bool {
        (self.rows, self.cols, self.dtype) == (other.rows, other.cols, other.dtype)
    }
}

/// How a new tile gets its MemRef (rules §3.1).
enum Placement {
    /// A fresh base: takes the next number and an alloc line.
    Fresh,
    /// Shares a source's MemRef (views, in-place ops, bare aliases, return variables).
    Shared(MemRef),
}

struct FunctionGen<'a> {
    cfg: &'a SynthConfig,
    shapes: Shapes,
    rng: SplitMix64,
    /// InitMemRef's per-function MemRef counter `N`; the tensor parameters took 0..=2.
    next_memref: usize,
    next_name: usize,
    allocs: String,
    body: String,
    /// Indentation of the statement being written, in 4-space steps.
    indent: usize,
    depth: usize,
    /// Vec tiles visible at this point, oldest first.
    pool: Vec<Tile>,
    /// Induction variables of the enclosing loops, innermost last.
    loop_vars: Vec<String>,
    /// The newest SSA value of the output tensor.
    output: String,
    tiles: usize,
    pipeline_groups: usize,
}

impl<'a> FunctionGen<'a> {
    fn new(cfg: &'a SynthConfig, shapes: Shapes, seed: u64) -> FunctionGen<'a> {
        FunctionGen {
            cfg,
            shapes,
            rng: SplitMix64(seed),
            next_memref: 3,
            next_name: 0,
            allocs: String::new(),
            body: String::new(),
            indent: 2,
            depth: 0,
            pool: Vec::new(),
            loop_vars: Vec::new(),
            output: "y_out".to_string(),
            tiles: 0,
            pipeline_groups: 0,
        }
    }

    fn emit(mut self, name: &str, out: &mut String) {
        if self.cfg.control_flow {
            self.start_line();
            self.body
                .push_str("pl.system.reserve_buffer(name='scratch', size=4096)\n");
        }
        while self.tiles < self.cfg.tiles_per_function {
            self.statement();
        }
        let last = self.float32_operand();
        self.store(&last);
        self.start_line();
        let _ = writeln!(self.body, "return {}", self.output);

        let _ = writeln!(
            out,
            "    @pl.function(type=pl.FunctionType.InCore)\n    def {name}(self{}) -> pl.Tensor[[{ROWS}, {COLS}], pl.FP32]:",
            kernel_params()
        );
        out.push_str(&self.allocs);
        out.push_str(&self.body);
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}_{}", self.next_name)
    }

    fn start_line(&mut self) {
        for _ in 0..self.indent {
            self.body.push_str("    ");
        }
    }

    /// Yields `value` as an if's result `phi`, named and typed by the first arm that yields
    /// (its MemRef is that arm's value's), so that every arm prints the same name and type.
    fn yield_as_phi(&mut self, phi: &mut Option<Tile>, value: &Tile) {
        let phi = phi.get_or_insert_with(|| Tile {
            name: self.fresh_name("phi"),
            ..value.clone()
        });
        self.start_line();
        self.body.push_str(&phi.name);
        self.body.push_str(": ");
        phi.write_type(&mut self.body);
        let _ = writeln!(self.body, " = pl.yield_({})", value.name);
    }

    /// A fresh MemRef: the next number, and an alloc line in first-seen order.
    fn fresh_memref(&mut self, space: Space, size: u64) -> MemRef {
        let base = format!("mem_{}_{}", space.lowercase(), self.next_memref);
        self.next_memref += 1;
        let _ = writeln!(
            self.allocs,
            "        {base}: pl.Ptr = pl.tile.alloc(pl.Mem.{}, {size})",
            space.name()
        );
        MemRef {
            base,
            offset: Offset::Root,
            size,
        }
    }

    /// Writes `name: <tile type> = <rhs>` and returns the new tile (not yet in the pool).
    fn define(
        &mut self,
        prefix: &str,
        (rows, cols, dtype, space): (u64, u64, DType, Space),
        placement: Placement,
        rhs: &str,
    ) -> Tile {
        let memref = match placement {
            Placement::Fresh => self.fresh_memref(space, tile_bytes(rows, cols, dtype, space)),
            Placement::Shared(memref) => memref,
        };
        let tile = Tile {
            name: self.fresh_name(prefix),
            rows,
            cols,
            dtype,
            space,
            memref,
        };
        self.start_line();
        self.body.push_str(&tile.name);
        self.body.push_str(": ");
        tile.write_type(&mut self.body);
        self.body.push_str(" = ");
        self.body.push_str(rhs);
        self.body.push('\n');
        self.tiles += 1;
        tile
    }

    /// Defines a fresh Vec tile and makes it available as an operand.
    fn define_vec(&mut self, prefix: &str, layout: (u64, u64, DType), rhs: &str) -> Tile {
        let (rows, cols, dtype) = layout;
        let tile = self.define(
            prefix,
            (rows, cols, dtype, Space::Vec),
            Placement::Fresh,
            rhs,
        );
        self.pool.push(tile.clone());
        tile
    }

    /// An operand: one of the `max_live` newest tiles, or any earlier tile (dense family).
    fn operand(&mut self) -> Tile {
        if self.pool.is_empty() {
            return self.load(None);
        }
        let len = self.pool.len();
        let index = match self.cfg.max_live {
            Some(window) => len - 1 - self.rng.below(window.clamp(1, len)),
            None => self.rng.below(len),
        };
        self.pool[index].clone()
    }

    /// A second operand laid out like `first`, else `first` itself. Searches the `max_live`
    /// window, or a few random earlier tiles in the dense family (a full scan would make
    /// generation quadratic).
    fn partner(&mut self, first: &Tile) -> Tile {
        let found = match self.cfg.max_live {
            Some(window) => self
                .pool
                .iter()
                .rev()
                .take(window)
                .find(|t| t.name != first.name && t.same_layout(first))
                .cloned(),
            None => (0..DENSE_PARTNER_TRIES).find_map(|_| {
                let candidate = &self.pool[self.rng.below(self.pool.len())];
                (candidate.name != first.name && candidate.same_layout(first))
                    .then(|| candidate.clone())
            }),
        };
        found.unwrap_or_else(|| first.clone())
    }

    fn float32_operand(&mut self) -> Tile {
        let tile = self.operand();
        match tile.dtype {
            DType::Fp32 => tile,
            _ => self.cast(&tile, DType::Fp32),
        }
    }

    /// The `[row, col]` offset of a `[rows, cols]` window inside the global tensors.
    fn tensor_offset(&mut self, rows: u64, cols: u64) -> String {
        let col = self.rng.below((COLS / cols) as usize) as u64 * cols;
        match self.loop_vars.last() {
            Some(var) => format!("[{var} * {rows}, {col}]"),
            None => {
                let row = self.rng.below((ROWS / rows) as usize) as u64 * rows;
                format!("[{row}, {col}]")
            }
        }
    }

    fn load(&mut self, attrs: Option<&str>) -> Tile {
        let (rows, cols) = self.rng.pick(VEC_SHAPES);
        let (tensor, dtype) = if self.rng.percent(70) {
            ("x_f32", DType::Fp32)
        } else {
            ("x_f16", DType::Fp16)
        };
        let offset = self.tensor_offset(rows, cols);
        let rhs = format!(
            "pl.tile.load({tensor}, {offset}, [{rows}, {cols}], [{rows}, {cols}], target_memory=pl.Mem.Vec{})",
            attrs_kwarg(attrs)
        );
        self.define_vec("ld", (rows, cols, dtype), &rhs)
    }

    fn unary(&mut self, src: &Tile, attrs: Option<&str>) -> Tile {
        let rhs = if src.dtype.is_float() {
            match self.rng.below(6) {
                0 => format!("pl.tile.exp({}{})", src.name, attrs_kwarg(attrs)),
                1 => format!("pl.tile.abs({}{})", src.name, attrs_kwarg(attrs)),
                2 => format!("pl.tile.relu({}{})", src.name, attrs_kwarg(attrs)),
                3 => format!("pl.tile.neg({}{})", src.name, attrs_kwarg(attrs)),
                4 => format!("pl.tile.muls({}, 0.125{})", src.name, attrs_kwarg(attrs)),
                _ => format!("pl.tile.adds({}, 1.0{})", src.name, attrs_kwarg(attrs)),
            }
        } else {
            format!("pl.tile.adds({}, 1{})", src.name, attrs_kwarg(attrs))
        };
        let value = self.define_vec("un", (src.rows, src.cols, src.dtype), &rhs);
        if self.hazard(3) {
            return self.pad_in_place(&value);
        }
        value
    }

    /// `tile.fillpad_inplace` of `src`, whose result sits on `src`'s MemRef (its output reuses
    /// input 0): it stands for `src` from here on, which nothing reads again. A carry's next
    /// value, an arm's yielded value, an `if` result or a loop result padded so: the repairs
    /// that give a carry or a result a buffer of its own, or move a tile to a fresh one, must
    /// take the in-place result along.
    fn pad_in_place(&mut self, src: &Tile) -> Tile {
        let pad = self.rng.pick(&["zero", "min", "max"]);
        let rhs = format!(
            "pl.tile.fillpad_inplace({}, pad_value=pl.PadValue.{pad})",
            src.name
        );
        let padded = self.define(
            "pad",
            (src.rows, src.cols, src.dtype, Space::Vec),
            Placement::Shared(src.memref.clone()),
            &rhs,
        );
        self.pool.retain(|t| t.name != src.name);
        self.pool.push(padded.clone());
        padded
    }

    fn binary(&mut self, lhs: &Tile) -> Tile {
        let rhs_tile = self.partner(lhs);
        self.binary_with(lhs, &rhs_tile)
    }

    fn binary_with(&mut self, lhs: &Tile, rhs_tile: &Tile) -> Tile {
        let op = self.rng.pick(&["add", "sub", "mul", "maximum", "minimum"]);
        let rhs = format!("pl.tile.{op}({}, {})", lhs.name, rhs_tile.name);
        self.define_vec(op, (lhs.rows, lhs.cols, lhs.dtype), &rhs)
    }

    /// With [`Shapes::WithUpstreamHazards`], true `percent` % of the time; never otherwise (and
    /// then it draws nothing, so the default shapes' text does not change).
    fn hazard(&mut self, percent: usize) -> bool {
        self.shapes == Shapes::WithUpstreamHazards && self.rng.percent(percent)
    }

    fn cast(&mut self, src: &Tile, to: DType) -> Tile {
        let rhs = format!(
            "pl.tile.cast({}, target_type=pl.{}, mode='round')",
            src.name,
            to.name()
        );
        self.define_vec("cast", (src.rows, src.cols, to), &rhs)
    }

    /// `row_max`/`row_sum` with its scratch tile, then broadcast back over the rows.
    fn row_reduction(&mut self, src: &Tile) -> Tile {
        let (rows, cols, dtype) = (src.rows, src.cols, src.dtype);
        let create = format!(
            "pl.tile.create([{rows}, {cols}], dtype=pl.{}, target_memory=pl.Mem.Vec)",
            dtype.name()
        );
        let scratch = self.define_vec("tmp", (rows, cols, dtype), &create);
        let (reduce, expand) = if self.rng.percent(50) {
            ("row_max", "row_expand_sub")
        } else {
            ("row_sum", "row_expand_div")
        };
        let row = self.define_vec(
            reduce,
            (rows, 1, dtype),
            &format!("pl.tile.{reduce}({}, {})", src.name, scratch.name),
        );
        self.define_vec(
            expand,
            (rows, cols, dtype),
            &format!("pl.tile.{expand}({}, {})", src.name, row.name),
        )
    }

    /// Mat loads, moves to Left/Right, a matmul (sometimes accumulated twice) and a move of
    /// the Acc result back to Vec.
    fn matmul(&mut self) -> Tile {
        let m = self.rng.pick(CUBE_DIMS);
        let k = self.rng.pick(CUBE_DIMS);
        let n = self.rng.pick(CUBE_DIMS);
        let lhs = self.cube_operand("a", (m, k));
        let rhs = self.cube_operand("b", (k, n));
        let product = format!("pl.tile.matmul({}, {})", lhs.name, rhs.name);
        let mut acc = self.define(
            "acc",
            (m, n, DType::Fp32, Space::Acc),
            Placement::Fresh,
            &product,
        );
        if self.rng.percent(40) {
            // matmul_acc lands in its accumulator's buffer (reuses input 0).
            let rhs_text = format!(
                "pl.tile.matmul_acc({}, {}, {})",
                acc.name, lhs.name, rhs.name
            );
            let memref = acc.memref.clone();
            acc = self.define(
                "acc",
                (m, n, DType::Fp32, Space::Acc),
                Placement::Shared(memref),
                &rhs_text,
            );
        }
        let rhs_text = format!("pl.tile.move({}, target_memory=pl.Mem.Vec)", acc.name);
        self.define_vec("mm", (m, n, DType::Fp32), &rhs_text)
    }

    /// A `[rows, cols]` FP16 operand loaded to Mat and moved to Left (`a`) or Right (`b`).
    fn cube_operand(&mut self, role: &str, (rows, cols): (u64, u64)) -> Tile {
        let offset = self.tensor_offset(rows, cols);
        let load = format!(
            "pl.tile.load(x_f16, {offset}, [{rows}, {cols}], [{rows}, {cols}], target_memory=pl.Mem.Mat)"
        );
        let mat = self.define(
            &format!("{role}_mat"),
            (rows, cols, DType::Fp16, Space::Mat),
            Placement::Fresh,
            &load,
        );
        let space = if role == "a" {
            Space::Left
        } else {
            Space::Right
        };
        let move_rhs = format!(
            "pl.tile.move({}, target_memory=pl.Mem.{})",
            mat.name,
            space.name()
        );
        self.define(
            &format!("{role}_{}", space.lowercase()),
            (rows, cols, DType::Fp16, space),
            Placement::Fresh,
            &move_rhs,
        )
    }

    /// `tile.store` lands in the output tensor's DDR MemRef (reuses input 2).
    fn store(&mut self, src: &Tile) {
        let name = self.fresh_name("st");
        let offset = self.tensor_offset(src.rows, src.cols);
        self.start_line();
        let _ = writeln!(
            self.body,
            "{name}: {} = pl.tile.store({}, {offset}, {})",
            tensor_type(DType::Fp32, 2),
            src.name,
            self.output
        );
        self.output = name;
    }

    /// One random statement (or block) at the current position.
    fn statement(&mut self) {
        let roll = self.rng.below(100);
        if !self.cfg.control_flow {
            match roll {
                0..20 => {
                    self.load(None);
                }
                20..45 => {
                    let src = self.operand();
                    self.unary(&src, None);
                }
                45..75 => {
                    let src = self.operand();
                    self.binary(&src);
                }
                75..83 => {
                    let src = self.float32_operand();
                    self.row_reduction(&src);
                }
                83..90 => self.cast_any(),
                90..95 => {
                    self.matmul();
                }
                _ => {
                    let src = self.float32_operand();
                    self.store(&src);
                }
            }
            return;
        }
        let blocks_allowed = self.depth < MAX_BLOCK_DEPTH;
        if blocks_allowed && self.hazard(1) {
            self.acc_if_phi();
            return;
        }
        match roll {
            0..12 => {
                self.load(None);
            }
            12..27 => {
                let src = self.operand();
                self.unary(&src, None);
            }
            27..45 => {
                let src = self.operand();
                self.binary(&src);
            }
            45..50 => {
                let src = self.float32_operand();
                self.row_reduction(&src);
            }
            50..54 => self.cast_any(),
            54..57 => {
                self.matmul();
            }
            57..60 => {
                let src = self.float32_operand();
                self.store(&src);
            }
            60..68 => self.view(),
            68..71 => self.bare_alias(),
            71..74 => self.tuple_op(),
            74..78 => self.scalar_round_trip(),
            78..85 if blocks_allowed => self.carry_loop(),
            85..88 if blocks_allowed => self.pipeline_loop(),
            88..95 if blocks_allowed => self.if_phi(),
            95..100 if blocks_allowed => self.scope_block(),
            _ => {
                let src = self.operand();
                self.binary(&src);
            }
        }
    }

    fn cast_any(&mut self) {
        let src = self.operand();
        let to = match src.dtype {
            DType::Fp32 => self.rng.pick(&[DType::Fp16, DType::Bf16]),
            _ => DType::Fp32,
        };
        self.cast(&src, to);
    }

    /// reshape, slice (row or column window) or reinterpret_view of a tile (rules §3.2).
    fn view(&mut self) {
        let src = self.operand();
        let rhs;
        let (rows, cols, dtype, memref);
        match self.rng.below(4) {
            0 => {
                // A reshape keeps offset and size: the very same MemRef.
                (rows, cols, dtype) = (src.cols, src.rows, src.dtype);
                rhs = format!("pl.tile.reshape({}, [{rows}, {cols}])", src.name);
                memref = src.memref.clone();
            }
            1 if src.rows >= 2 => {
                // The lower half of the rows: a contiguous window.
                let half = src.rows / 2;
                (rows, cols, dtype) = (src.rows - half, src.cols, src.dtype);
                rhs = format!("pl.tile.slice({}, [{rows}, {cols}], [{half}, 0])", src.name);
                let extra = half * src.cols * dtype.bytes();
                memref = MemRef {
                    base: src.memref.base.clone(),
                    offset: Offset::View(src.memref.offset.bytes() + extra),
                    size: rows * cols * dtype.bytes(),
                };
            }
            2 if src.cols >= 2 => {
                // The right half of the columns: its span covers every row's stride.
                let half = src.cols / 2;
                (rows, cols, dtype) = (src.rows, src.cols - half, src.dtype);
                rhs = format!("pl.tile.slice({}, [{rows}, {cols}], [0, {half}])", src.name);
                let span = (rows - 1) * src.cols + (cols - 1) + 1;
                memref = MemRef {
                    base: src.memref.base.clone(),
                    offset: Offset::View(src.memref.offset.bytes() + half * dtype.bytes()),
                    size: span * dtype.bytes(),
                };
            }
            _ => {
                (rows, cols, dtype) = (src.rows, src.cols, src.dtype.reinterpreted());
                rhs = format!(
                    "pl.tile.reinterpret_view({}, dtype=pl.{})",
                    src.name,
                    dtype.name()
                );
                memref = src.memref.clone();
            }
        }
        let view = self.define(
            "view",
            (rows, cols, dtype, Space::Vec),
            Placement::Shared(memref),
            &rhs,
        );
        self.pool.push(view);
    }

    fn bare_alias(&mut self) {
        let src = self.operand();
        let layout = (src.rows, src.cols, src.dtype, Space::Vec);
        let alias = self.define(
            "alias",
            layout,
            Placement::Shared(src.memref.clone()),
            &src.name,
        );
        self.pool.push(alias);
    }

    /// `tile.gather_compare` returns a pair of tiles; each tuple item gets a fresh MemRef and is
    /// read after both are extracted.
    fn tuple_op(&mut self) {
        let src = self.float32_operand();
        let scratch = self.partner(&src);
        let rows = src.rows;
        let pair = self.fresh_name("pair");
        self.start_line();
        let _ = writeln!(
            self.body,
            "{pair}: pl.Tuple[pl.Tile[[{rows}, 16], pl.INT32, pl.Mem.Vec], pl.Tile[[1, {rows}], pl.INT32, pl.Mem.Vec]] = pl.tile.gather_compare({}, pl.const(1.0, pl.FP32), {}, cmp_mode='eq', out_cols=16)",
            src.name, scratch.name
        );
        let items = [
            self.define_vec("dst", (rows, 16, DType::Int32), &format!("{pair}[0]")),
            self.define_vec("cdst", (1, rows, DType::Int32), &format!("{pair}[1]")),
        ];
        // The op writes both items at once, but upstream numbers each `x = t[k]` on its own
        // (rules §5.1): an item nobody reads would end before the next one is extracted and
        // could share its buffer. PyPTO's frontend only extracts items it uses; the hazard
        // shapes leave the first unread.
        let unread_first = self.hazard(30);
        for (k, item) in items.iter().enumerate() {
            if unread_first && k == 0 {
                self.pool.retain(|t| t.name != item.name);
            } else {
                self.unary(item, None);
            }
        }
    }

    /// Reads a scalar out of one tile, scales another by it, and writes it back (an eval).
    fn scalar_round_trip(&mut self) {
        let src = self.float32_operand();
        let scalar = self.fresh_name("s");
        self.start_line();
        let _ = writeln!(
            self.body,
            "{scalar}: pl.Scalar[pl.FP32] = pl.tile.read({}, [0, 0])",
            src.name
        );
        let target = self.float32_operand();
        let scaled = self.define_vec(
            "muls",
            (target.rows, target.cols, DType::Fp32),
            &format!("pl.tile.muls({}, {scalar})", target.name),
        );
        self.start_line();
        let _ = writeln!(
            self.body,
            "pl.tile.write({}, [0, 0], {scalar})",
            scaled.name
        );
    }

    /// Runs `body` one level deeper; tiles it defines go out of scope afterwards, and stores
    /// inside it do not advance the function-level output value.
    fn block<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> R {
        let visible = self.pool.len();
        let output = self.output.clone();
        self.indent += 1;
        self.depth += 1;
        let result = body(self);
        self.depth -= 1;
        self.indent -= 1;
        self.pool.truncate(visible);
        self.output = output;
        result
    }

    fn random_statements(&mut self, max: usize) {
        for _ in 0..1 + self.rng.below(max) {
            self.statement();
        }
    }

    /// `for i, (c, ...) in pl.range(n, init_values=(...))` carrying one or two tiles, each
    /// initialised by a tile of its own (see [`FunctionGen::fresh_loop_init`]).
    fn carry_loop(&mut self) {
        let carries = if self.rng.percent(30) { 2 } else { 1 };
        let (inits, live_inits): (Vec<Tile>, Vec<bool>) =
            (0..carries).map(|_| self.loop_init()).unzip();
        let loop_var = self.fresh_name("i");
        // Iter args have their init's type and MemRef (rules §3.1).
        let iter_args: Vec<Tile> = inits
            .iter()
            .map(|init| Tile {
                name: self.fresh_name("carry"),
                ..init.clone()
            })
            .collect();
        let trips = self.rng.pick(&[2u64, 4, 8]);
        self.start_line();
        let _ = writeln!(
            self.body,
            "for {loop_var}, ({}) in pl.range({trips}, init_values=({})):",
            tuple_items(iter_args.iter().map(|t| t.name.as_str())),
            tuple_items(inits.iter().map(|t| t.name.as_str()))
        );
        let return_vars = self.block(|g| {
            g.loop_vars.push(loop_var);
            g.pool.extend(iter_args.iter().cloned());
            g.random_statements(4);
            let mut nexts = Vec::new();
            for (carry, (init, &live)) in iter_args.iter().zip(inits.iter().zip(&live_inits)) {
                let next = if live && g.hazard(50) {
                    // The init read again inside the loop.
                    g.binary_with(carry, init)
                } else if g.depth < MAX_BLOCK_DEPTH && g.hazard(25) {
                    g.nested_carry(carry)
                } else if carry.dtype.is_float() && g.rng.percent(50) {
                    g.binary(carry)
                } else {
                    g.unary(carry, None)
                };
                nexts.push(next.name);
            }
            // Return variables each take a number, then adopt their init's MemRef.
            let return_vars: Vec<Tile> = inits
                .iter()
                .map(|init| {
                    g.next_memref += 1;
                    Tile {
                        name: g.fresh_name("out"),
                        ..init.clone()
                    }
                })
                .collect();
            g.start_line();
            if let [single] = return_vars.as_slice() {
                g.body.push_str(&single.name);
                g.body.push_str(": ");
                single.write_type(&mut g.body);
            } else {
                g.body
                    .push_str(&join(return_vars.iter().map(|t| t.name.as_str())));
            }
            let _ = writeln!(
                g.body,
                " = pl.yield_({})",
                join(nexts.iter().map(String::as_str))
            );
            g.loop_vars.pop();
            return_vars
        });
        for ((out, init), live) in return_vars.iter().zip(&inits).zip(live_inits) {
            if live && self.hazard(50) {
                // The init read again after the loop.
                self.binary_with(out, init);
            }
        }
        self.pool.extend(return_vars.iter().cloned());
        if let Some(out) = return_vars.first()
            && self.hazard(5)
        {
            self.pad_in_place(out);
        }
    }

    /// A loop init: a tile of its own ([`FunctionGen::fresh_loop_init`]), or, among the hazard
    /// shapes, a live tile or a view of one (then `true`).
    fn loop_init(&mut self) -> (Tile, bool) {
        if !self.hazard(40) {
            return (self.fresh_loop_init(), false);
        }
        let src = self.operand();
        if src.rows < 2 || !self.hazard(40) {
            return (src, true);
        }
        let half = src.rows / 2;
        let (rows, cols, dtype) = (src.rows - half, src.cols, src.dtype);
        let memref = MemRef {
            base: src.memref.base.clone(),
            offset: Offset::View(src.memref.offset.bytes() + half * cols * dtype.bytes()),
            size: rows * cols * dtype.bytes(),
        };
        let rhs = format!("pl.tile.slice({}, [{rows}, {cols}], [{half}, 0])", src.name);
        let view = self.define(
            "view",
            (rows, cols, dtype, Space::Vec),
            Placement::Shared(memref),
            &rhs,
        );
        self.pool.push(view.clone());
        (view, true)
    }

    /// A two-trip loop nested in a carry loop and initialised by its iter arg `outer`; the outer
    /// loop yields its result (`tests/data/verify_upstream/nested_carry_without_step0.py`).
    fn nested_carry(&mut self, outer: &Tile) -> Tile {
        let loop_var = self.fresh_name("j");
        let inner = Tile {
            name: self.fresh_name("carry"),
            ..outer.clone()
        };
        self.start_line();
        let _ = writeln!(
            self.body,
            "for {loop_var}, ({},) in pl.range(2, init_values=({},)):",
            inner.name, outer.name
        );
        self.block(|g| {
            g.loop_vars.push(loop_var);
            g.pool.push(inner.clone());
            g.random_statements(2);
            let next = g.unary(&inner, None);
            g.next_memref += 1;
            let out = Tile {
                name: g.fresh_name("out"),
                ..outer.clone()
            };
            g.start_line();
            g.body.push_str(&out.name);
            g.body.push_str(": ");
            out.write_type(&mut g.body);
            let _ = writeln!(g.body, " = pl.yield_({})", next.name);
            g.loop_vars.pop();
            out
        })
    }

    /// A tile made for one loop init and read by nothing else: InitMemRef puts the iter arg on
    /// its init's buffer (rules §3.1) and each iteration's value is written back there (§4, §7.5),
    /// so PyPTO's frontend never reads an init (or a tile sharing its bytes) once the loop begins.
    /// A copy of an operand or a zero tile, like real kernels' accumulators. A nested loop is
    /// therefore never initialised by the enclosing iter arg either: PyPTO's frontend does
    /// that, but without Step 0 PyPTO's plan loses such a carry
    /// (`tests/data/verify_upstream/nested_carry_without_step0.py`), and the generated programs
    /// are planned both ways.
    fn fresh_loop_init(&mut self) -> Tile {
        let src = self.operand();
        let (rows, cols, dtype) = (src.rows, src.cols, src.dtype);
        let (one, zero) = if dtype.is_float() {
            ("1.0", "0.0")
        } else {
            ("1", "0")
        };
        let rhs = if self.rng.percent(50) {
            format!("pl.tile.muls({}, {one})", src.name)
        } else {
            format!(
                "pl.tile.full([{rows}, {cols}], dtype=pl.{}, value={zero})",
                dtype.name()
            )
        };
        self.define(
            "seed",
            (rows, cols, dtype, Space::Vec),
            Placement::Fresh,
            &rhs,
        )
    }

    /// A software-pipelined loop whose two stage clones carry `pipeline_membership` tags.
    fn pipeline_loop(&mut self) {
        let group = self.pipeline_groups;
        self.pipeline_groups += 1;
        let loop_var = self.fresh_name("p");
        self.start_line();
        let _ = writeln!(
            self.body,
            "for {loop_var} in pl.pipeline(0, {COLS}, 64, stage=2):"
        );
        self.block(|g| {
            let row = g.rng.below((ROWS / 16) as usize) as u64 * 16;
            for stage in 0..2 {
                let attrs = format!("{group}:{stage}");
                let col = if stage == 0 {
                    loop_var.clone()
                } else {
                    format!("{loop_var} + 32")
                };
                let load = format!(
                    "pl.tile.load(x_f32, [{row}, {col}], [16, 32], [16, 32], target_memory=pl.Mem.Vec{})",
                    attrs_kwarg(Some(&attrs))
                );
                let loaded = g.define_vec("stage_ld", (16, 32, DType::Fp32), &load);
                let computed = g.unary(&loaded, Some(&attrs));
                let name = g.fresh_name("stage_st");
                g.start_line();
                let _ = writeln!(
                    g.body,
                    "{name}: {} = pl.tile.store({}, [{row}, {col}], {}{})",
                    tensor_type(DType::Fp32, 2),
                    computed.name,
                    g.output,
                    attrs_kwarg(Some(&attrs))
                );
            }
        });
    }

    /// An `if` whose branches each compute a tile of one layout and yield it to a phi (now and
    /// then the else arm yields the pre-if tile itself); now and then an if without else or phi
    /// instead. The then arm always yields a tile of its own: the phi sits on the then value's
    /// buffer (rules §3.1, §7.5) but reads of the phi keep only branch-local values alive
    /// (§5.4), so PyPTO's plan may hand a pre-if value's buffer to a later tile while the phi
    /// still lives there (`tests/data/verify_upstream/if_then_arm_yields_*`). An else arm's
    /// value is copied into the then value's buffer, which is safe.
    fn if_phi(&mut self) {
        let condition = match self.loop_vars.last() {
            Some(var) => format!("{var} < 2"),
            None => "flag > 0".to_string(),
        };
        if self.rng.percent(20) {
            self.start_line();
            let _ = writeln!(self.body, "if {condition}:");
            self.block(|g| {
                g.random_statements(3);
                g.start_line();
                g.body.push_str("pl.yield_()\n");
            });
            return;
        }
        // Picked before the header: with an empty pool this loads a tile, outside the if.
        let template = self.operand();
        self.start_line();
        let _ = writeln!(self.body, "if {condition}:");
        let mut phi: Option<Tile> = None;
        for branch in 0..2 {
            if branch == 1 {
                self.start_line();
                self.body.push_str("else:\n");
            }
            let else_yields_template = branch == 1 && self.rng.percent(30);
            let then_yields_template = branch == 0 && self.hazard(30);
            self.block(|g| {
                g.random_statements(3);
                let value = if else_yields_template || then_yields_template {
                    template.clone()
                } else {
                    g.unary(&template, None)
                };
                // The phi takes a number when the if is done, but its MemRef is the
                // then-branch value's.
                g.yield_as_phi(&mut phi, &value);
            });
        }
        self.next_memref += 1;
        self.pool.extend(phi.clone());
        if let Some(phi) = phi
            && self.hazard(5)
        {
            self.pad_in_place(&phi);
        }
    }

    /// An accumulator `if` (rules §7.4), as real kernels write a K loop: one arm initialises
    /// the accumulator with `tile.matmul`, the other accumulates with `tile.matmul_acc` into an
    /// Acc tile from before the `if` (its result on that tile's MemRef), and both yield one
    /// result, which sits on the then arm's value (rules §3.1) and is moved to Vec. Either the
    /// accumulator is a pre-if `tile.matmul` result, which is now and then read again after the
    /// `if`, or it is the iter arg of a loop around the `if` (`if k == 0` initialises it), whose
    /// init is now and then read after the loop. PyPTO coalesces the `tile.matmul` arm's value
    /// onto the accumulator's buffer (§7.4), and a later read of the pre-if value then reads
    /// that value.
    fn acc_if_phi(&mut self) {
        let (m, k, n) = (
            self.rng.pick(CUBE_DIMS),
            self.rng.pick(CUBE_DIMS),
            self.rng.pick(CUBE_DIMS),
        );
        let lhs = self.cube_operand("a", (m, k));
        let rhs = self.cube_operand("b", (k, n));
        let layout = (m, n, DType::Fp32, Space::Acc);
        let product = format!("pl.tile.matmul({}, {})", lhs.name, rhs.name);
        let pre = self.define("acc", layout, Placement::Fresh, &product);
        let init_first = self.rng.percent(50);
        // The accumulator `if`, in the current block: yields its result.
        let accumulate_if = |g: &mut Self, accumulator: &Tile, condition: &str| -> Tile {
            g.start_line();
            let _ = writeln!(g.body, "if {condition}:");
            let mut phi: Option<Tile> = None;
            for branch in 0..2 {
                if branch == 1 {
                    g.start_line();
                    g.body.push_str("else:\n");
                }
                let inits = (branch == 0) == init_first;
                g.block(|g| {
                    if g.rng.percent(50) {
                        g.random_statements(2);
                    }
                    let value = if inits {
                        g.define("acc", layout, Placement::Fresh, &product)
                    } else {
                        let rhs = format!(
                            "pl.tile.matmul_acc({}, {}, {})",
                            accumulator.name, lhs.name, rhs.name
                        );
                        g.define(
                            "acc",
                            layout,
                            Placement::Shared(accumulator.memref.clone()),
                            &rhs,
                        )
                    };
                    g.yield_as_phi(&mut phi, &value);
                });
            }
            g.next_memref += 1;
            phi.expect("both arms yield")
        };
        let result = if self.rng.percent(50) {
            let result = match self.loop_vars.last().cloned() {
                Some(var) => accumulate_if(self, &pre, &format!("{var} < 2")),
                None => accumulate_if(self, &pre, "flag > 0"),
            };
            // The accumulator read again after the `if`.
            if self.rng.percent(50) {
                self.acc_to_vec(&pre);
            }
            result
        } else {
            let loop_var = self.fresh_name("k");
            let carry = Tile {
                name: self.fresh_name("carry"),
                ..pre.clone()
            };
            let trips = self.rng.pick(&[2u64, 4]);
            self.start_line();
            let _ = writeln!(
                self.body,
                "for {loop_var}, ({},) in pl.range({trips}, init_values=({},)):",
                carry.name, pre.name
            );
            let out = self.block(|g| {
                g.loop_vars.push(loop_var.clone());
                let phi = accumulate_if(g, &carry, &format!("{loop_var} == 0"));
                g.next_memref += 1;
                let out = Tile {
                    name: g.fresh_name("out"),
                    ..pre.clone()
                };
                g.start_line();
                g.body.push_str(&out.name);
                g.body.push_str(": ");
                out.write_type(&mut g.body);
                let _ = writeln!(g.body, " = pl.yield_({})", phi.name);
                g.loop_vars.pop();
                out
            });
            // The loop's init read again after the loop.
            if self.rng.percent(50) {
                self.acc_to_vec(&pre);
            }
            out
        };
        self.acc_to_vec(&result);
    }

    /// `tile.move` of an Acc tile to Vec, available as an operand.
    fn acc_to_vec(&mut self, acc: &Tile) -> Tile {
        let rhs = format!("pl.tile.move({}, target_memory=pl.Mem.Vec)", acc.name);
        self.define_vec("mm", (acc.rows, acc.cols, DType::Fp32), &rhs)
    }

    fn scope_block(&mut self) {
        self.start_line();
        self.body.push_str("with pl.scope():\n");
        // Scopes are transparent: what they define stays visible after them.
        self.indent += 1;
        self.depth += 1;
        self.random_statements(4);
        self.depth -= 1;
        self.indent -= 1;
    }
}

fn attrs_kwarg(membership: Option<&str>) -> String {
    match membership {
        Some(tag) => format!(", attrs={{\"pipeline_membership\": \"{tag}\"}}"),
        None => String::new(),
    }
}

/// The inside of a Python tuple: a single item keeps its trailing comma.
fn tuple_items<'s>(items: impl Iterator<Item = &'s str>) -> String {
    let items: Vec<&str> = items.collect();
    match items.as_slice() {
        [single] => format!("{single},"),
        _ => items.join(", "),
    }
}

fn join<'s>(items: impl Iterator<Item = &'s str>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    fn config(tiles: usize, seed: u64) -> SynthConfig {
        SynthConfig {
            functions: 2,
            tiles_per_function: tiles,
            max_live: Some(6),
            seed,
            control_flow: true,
        }
    }

    /// Each function's lines, from its decorator up to the next one.
    fn functions(text: &str) -> Vec<Vec<&str>> {
        let mut functions: Vec<Vec<&str>> = Vec::new();
        for line in text.lines() {
            if line.starts_with("    @pl.function") {
                functions.push(Vec::new());
            }
            if let Some(function) = functions.last_mut() {
                function.push(line);
            }
        }
        functions
    }

    /// Identifiers a line reads: not attribute names (`pl.tile`), not keyword-argument names,
    /// nothing inside string literals.
    fn identifiers_read(text: &str) -> Vec<&str> {
        let mut read = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'\'' || c == b'"' {
                i += 1 + text[i + 1..].find(c as char).unwrap() + 1;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let after_dot = start > 0 && bytes[start - 1] == b'.';
                let kwarg_name = bytes.get(i) == Some(&b'=') && bytes.get(i + 1) != Some(&b'=');
                if !after_dot && !kwarg_name {
                    read.push(&text[start..i]);
                }
            } else {
                i += 1;
            }
        }
        read
    }

    /// The part of a statement that reads variables (no targets, types or keywords).
    fn value_part(line: &str) -> &str {
        let line = line.trim();
        if line.starts_with("for ") {
            &line[line.find(" in ").unwrap() + 4..]
        } else if let Some(condition) = line.strip_prefix("if ") {
            condition
        } else if let Some(values) = line.strip_prefix("return ") {
            values
        } else if line.starts_with("with ") || line == "else:" {
            ""
        } else if let Some(at) = line.find(" = ") {
            &line[at + 3..]
        } else {
            line
        }
    }

    /// The names a line defines: assignment targets, loop variables and iter args.
    fn identifiers_defined(line: &str) -> Vec<&str> {
        let line = line.trim();
        if let Some(header) = line.strip_prefix("for ") {
            let targets = &header[..header.find(" in ").unwrap()];
            return targets
                .split([',', '(', ')', ' '])
                .filter(|name| !name.is_empty())
                .collect();
        }
        match line.find(" = ") {
            Some(end) => line[..end].split(':').next().unwrap().split(", ").collect(),
            None => Vec::new(),
        }
    }

    #[test]
    fn same_seed_gives_the_same_text() {
        assert_eq!(
            program_text("P", &config(300, 11)),
            program_text("P", &config(300, 11))
        );
    }

    #[test]
    fn different_seeds_give_different_text() {
        assert_ne!(
            program_text("P", &config(300, 1)),
            program_text("P", &config(300, 2))
        );
    }

    #[test]
    fn text_grows_with_the_tile_count() {
        let sizes: Vec<usize> = [50, 500, 5000]
            .iter()
            .map(|&tiles| program_text("P", &config(tiles, 5)).len())
            .collect();
        assert!(sizes[0] < sizes[1] && sizes[1] < sizes[2], "{sizes:?}");
    }

    #[test]
    fn every_function_defines_at_least_the_requested_tiles() {
        for text in [
            program_text("P", &config(400, 9)),
            program_text(
                "P",
                &SynthConfig {
                    control_flow: false,
                    max_live: None,
                    ..config(400, 9)
                },
            ),
        ] {
            for function in functions(&text).iter().filter(|f| f[0].contains("InCore")) {
                let tiles = function
                    .iter()
                    .filter(|l| l.contains(": pl.Tile[") && !l.contains("pl.yield_("))
                    .count();
                assert!(tiles >= 400, "{tiles} tiles");
            }
        }
    }

    #[test]
    fn programs_that_open_with_a_block_parse() {
        // Some of these seeds (28, for one) open a function with an if-phi before any tile exists.
        for seed in 0..64 {
            let text = program_text("P", &config(1, seed));
            if let Err(error) = memreuse_ir::parse_program(&text) {
                panic!("seed {seed}: {error:?}\n{text}");
            }
        }
    }

    #[test]
    fn straight_line_programs_have_no_blocks() {
        let text = program_text(
            "P",
            &SynthConfig {
                control_flow: false,
                ..config(500, 4)
            },
        );
        let has_block = text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("for ") || l.starts_with("if ") || l.starts_with("with ")
        });
        assert!(!has_block);
    }

    #[test]
    fn control_flow_programs_mix_every_statement_form() {
        let text = program_text("P", &config(2000, 3));
        for form in [
            "pl.tile.alloc(pl.Mem.Vec",
            "pl.tile.alloc(pl.Mem.Acc",
            "pl.tile.matmul_acc(",
            " in pl.range(",
            " in pl.pipeline(0, 256, 64, stage=2):",
            "\"pipeline_membership\": \"0:1\"",
            "if flag > 0:",
            "else:",
            "pl.yield_()",
            "with pl.scope():",
            ": pl.Tuple[",
            "[1]\n",
            ": pl.Scalar[pl.FP32] = ",
            "pl.tile.write(",
            "pl.tile.slice(",
            "pl.tile.reshape(",
            "pl.tile.reinterpret_view(",
            "pl.tile.full(",
            "self.kernel_1(",
            "return ",
        ] {
            assert!(text.contains(form), "missing {form}");
        }
        assert!(
            text.lines()
                .any(|l| l.contains(", out_") && l.contains(" = pl.yield_(")),
            "missing a multi-carry yield"
        );
    }

    #[test]
    fn every_memref_base_in_a_body_has_an_alloc() {
        let text = program_text("P", &config(1500, 21));
        for function in functions(&text) {
            let allocs: HashSet<&str> = function
                .iter()
                .filter_map(|l| l.split_once(": pl.Ptr = pl.tile.alloc("))
                .map(|(name, _)| name.trim())
                .collect();
            let mut used = HashSet::new();
            for line in &function[2..] {
                for (_, rest) in line
                    .match_indices("pl.MemRef(mem_")
                    .map(|(i, _)| line.split_at(i))
                {
                    let base = &rest["pl.MemRef(".len()..rest.find(',').unwrap()];
                    assert!(allocs.contains(base), "no alloc for {base}");
                    used.insert(base);
                }
            }
            assert_eq!(used.len(), allocs.len(), "an alloc nobody uses");
        }
    }

    #[test]
    fn names_are_defined_once_and_before_use() {
        for cfg in [
            config(1500, 8),
            SynthConfig {
                max_live: None,
                ..config(1500, 8)
            },
        ] {
            let text = program_text("P", &cfg);
            for function in functions(&text) {
                let signature = function[1];
                let mut defined: HashSet<&str> = ["self", "pl", "flag"].into();
                for param in signature.split(", ").filter_map(|p| p.split_once(": ")) {
                    defined.insert(param.0.trim_start_matches("    def kernel_0(").trim());
                }
                defined.extend(["x_f32", "x_f16", "y_out"]);
                for line in &function[2..] {
                    for name in identifiers_read(value_part(line)) {
                        assert!(
                            defined.contains(name),
                            "{name} read before definition: {line}"
                        );
                    }
                    for name in identifiers_defined(line) {
                        // If-phis are written once per branch; everything else exactly once.
                        let phi = line.contains("= pl.yield_(") && name.starts_with("phi_");
                        assert!(defined.insert(name) || phi, "{name} defined twice: {line}");
                    }
                }
            }
        }
    }

    /// What PyPTO's plan relies on (see `tests/upstream_miscompiles.rs`): a loop's init is read
    /// by its loop header alone, and every tuple item is read.
    #[test]
    fn loop_inits_are_read_once_and_tuple_items_at_least_once() {
        for cfg in [
            config(1500, 12),
            SynthConfig {
                max_live: None,
                ..config(1500, 12)
            },
        ] {
            let text = program_text("P", &cfg);
            for function in functions(&text).iter().filter(|f| f[0].contains("InCore")) {
                let mut reads: HashMap<&str, usize> = HashMap::new();
                for line in &function[2..] {
                    for name in identifiers_read(value_part(line)) {
                        *reads.entry(name).or_default() += 1;
                    }
                }
                let mut checked = 0;
                for line in &function[2..] {
                    let line = line.trim();
                    if let Some((_, inits)) = line.split_once("init_values=(") {
                        for init in identifiers_read(inits) {
                            assert_eq!(reads[init], 1, "init {init} read elsewhere: {line}");
                            checked += 1;
                        }
                    } else if line.contains(" = pair_") {
                        let item = identifiers_defined(line)[0];
                        assert!(reads.contains_key(item), "tuple item {item} never read");
                        checked += 1;
                    }
                }
                assert!(checked > 0);
            }
        }
    }
}
