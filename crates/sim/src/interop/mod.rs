//! Meeting the tools people already use: a run exported as Linux ftrace text (for Perfetto,
//! trace-cmd, KernelShark) or as a Perfetto protobuf trace with the fair class's internals, and
//! recorded traces (ftrace text, Perfetto protobuf, trace-cmd's trace.dat) imported as a
//! scenario that replays each task's observed bursts and sleeps under any policy.

mod detect;
pub(crate) mod ftrace_events;
pub mod ftrace_export;
pub mod ftrace_import;
pub(crate) mod ftrace_line;
pub mod perfetto;
pub mod real_run;
pub mod rtapp;
pub mod tracedat;

pub use detect::{detect_format, import_trace, import_trace_bytes, TraceFormat};
pub use ftrace_export::{run_to_ftrace, to_ftrace, write_ftrace, ExportError};
pub use ftrace_import::{import_ftrace, ImportOptions, Imported, ObservedTask};
pub use real_run::{RealRun, RealSlice, RealTask};
pub use perfetto::{import_perfetto, is_perfetto, run_to_perfetto, write_perfetto};
pub use rtapp::{export_rtapp, import_rtapp};
