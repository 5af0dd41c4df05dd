//! What the checkers are told about the plan: the backend, and what MemRef offsets mean.

use memreuse_ir::Function;
pub use memreuse_ir::backend::Backend;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    pub backend: Backend,
    pub addressing: Addressing,
}

/// What a MemRef's offset is in the plan being checked (rules §8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Addressing {
    /// An offset inside its base's allocation: AllocateMemoryAddr has not run.
    #[default]
    Offsets,
    /// AllocateMemoryAddr ran: in the functions it addresses (InCore, AIC, AIV) offsets are
    /// absolute addresses, so a base's tiles only have to fit in an alloc-sized window
    /// starting at their lowest offset, and tiles of different bases can overlap.
    AllocateMemoryAddr,
    /// Every function's offsets are addresses, whatever its type (plans of the offset planner).
    EveryFunction,
}

impl VerifyOptions {
    /// Whether any offset may be an address (AllocateMemoryAddr ran in some form).
    pub(crate) fn addressed(&self) -> bool {
        self.addressing != Addressing::Offsets
    }

    pub(crate) fn addressed_in(&self, f: &Function) -> bool {
        match self.addressing {
            Addressing::Offsets => false,
            Addressing::EveryFunction => true,
            Addressing::AllocateMemoryAddr => matches!(
                f.function_type(),
                memreuse_ir::FunctionType::InCore
                    | memreuse_ir::FunctionType::Aic
                    | memreuse_ir::FunctionType::Aiv
            ),
        }
    }
}
