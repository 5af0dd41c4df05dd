pub mod ir;
pub mod synth;
