//! Meeting the tools people already use: a run exported as Linux ftrace text (for Perfetto,
//! trace-cmd, KernelShark), and real ftrace text imported as a scenario that replays each
//! task's observed bursts and sleeps under any policy.

mod ftrace_events;
pub mod ftrace_export;
pub mod ftrace_import;
mod ftrace_line;
pub mod rtapp;

pub use ftrace_export::{run_to_ftrace, to_ftrace, write_ftrace, ExportError};
pub use ftrace_import::{import_ftrace, ImportOptions, Imported, ObservedTask};
pub use rtapp::{export_rtapp, import_rtapp};
