//! Perfetto's protobuf trace format: a run exported with the fair class's internals beside the
//! sched events, and recorded traces (ftrace sched events, in full or compact form) imported.

mod convert;
mod export;
mod import;
pub mod proto;

pub use convert::ftrace_text_to_perfetto;
pub use export::{run_to_perfetto, write_perfetto, END_EVENT};
pub use import::{import_perfetto, is_perfetto};
