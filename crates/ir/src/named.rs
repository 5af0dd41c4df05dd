//! The enums PyPTO spells by name in the IR: element types, memory spaces and binary operators
//! (by their symbols). Below the model and the op table, which both speak of them.

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            pub fn from_name(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }
    };
}

named_enum!(
    /// Element types (rules §1.2).
    DType {
        Bool = "BOOL", Int4 = "INT4", Int8 = "INT8", Int16 = "INT16", Int32 = "INT32",
        Int64 = "INT64", Uint4 = "UINT4", Uint8 = "UINT8", Uint16 = "UINT16", Uint32 = "UINT32",
        Uint64 = "UINT64", Fp4 = "FP4", Fp8E4m3fn = "FP8E4M3FN", Fp8E5m2 = "FP8E5M2",
        Fp8E8m0 = "FP8E8M0", Fp16 = "FP16", Fp32 = "FP32", Bf16 = "BF16", Hf4 = "HF4",
        Hf8 = "HF8", Index = "INDEX", TaskId = "TASK_ID",
    }
);

impl DType {
    /// Logical bit width (rules §2.2).
    pub fn bits(self) -> u32 {
        use DType::*;
        match self {
            Bool => 1,
            Int4 | Uint4 | Fp4 | Hf4 => 4,
            Int8 | Uint8 | Fp8E4m3fn | Fp8E5m2 | Fp8E8m0 | Hf8 => 8,
            Int16 | Uint16 | Fp16 | Bf16 => 16,
            Int32 | Uint32 | Fp32 => 32,
            Int64 | Uint64 | Index | TaskId => 64,
        }
    }

    /// Bits one element occupies in memory: 4 for the 4-bit types, else whole bytes.
    pub fn storage_bits(self) -> u32 {
        match self.bits() {
            4 => 4,
            b => b.div_ceil(8) * 8,
        }
    }
}

named_enum!(
    /// Memory spaces in upstream enum order (rules §2.1), which is also the planning order.
    MemSpace {
        Ddr = "DDR", Vec = "Vec", Mat = "Mat", Left = "Left", Right = "Right", Acc = "Acc",
        Bias = "Bias", ScalarLocal = "ScalarLocal", LeftScale = "LeftScale",
        RightScale = "RightScale",
    }
);

impl MemSpace {
    /// The L0 spaces, which the legacy pipeline predicate never separates (rules §6.6).
    pub fn is_l0(self) -> bool {
        matches!(
            self,
            MemSpace::Left
                | MemSpace::Right
                | MemSpace::Acc
                | MemSpace::Bias
                | MemSpace::LeftScale
                | MemSpace::RightScale
        )
    }
}

named_enum!(
    /// Binary operators, named by their Python symbols.
    BinOp {
        Add = "+", Sub = "-", Mul = "*", Div = "/", FloorDiv = "//", Mod = "%", Pow = "**",
        Eq = "==", Ne = "!=", Lt = "<", Le = "<=", Gt = ">", Ge = ">=", And = "and", Or = "or",
        BitAnd = "&", BitOr = "|", BitXor = "^", Shl = "<<", Shr = ">>",
    }
);
