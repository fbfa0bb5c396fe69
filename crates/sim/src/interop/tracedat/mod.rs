//! trace-cmd's binary `trace.dat`.

use super::ftrace_import::{ImportOptions, Imported};

/// The first bytes of every `trace.dat`: `\x17\x08\x44` and "tracing".
pub const MAGIC: &[u8] = b"\x17\x08\x44tracing";

pub fn import_tracedat(_data: &[u8], _opts: &ImportOptions) -> Result<Imported, String> {
    Err("trace.dat is not read yet".into())
}
