//! What the page asks of the import worker and what comes back. That worker is a bundle of
//! its own (`fairground-import`), loaded only when "Open file…" is given a file in another
//! program's format, so the first load never pays for the importers. Plain records.

use serde::{Deserialize, Serialize};

use crate::wire::measure::ImportedTrace;
use crate::wire::real::RealTrace;

/// What the page asks of the import worker. Every request gets exactly one answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum ImportInput {
    /// An rt-app workload file (json-c's JSON: comments, trailing commas, bare and repeated
    /// keys) as a scenario under `policy`, as the CLI's `import-rtapp` makes it.
    RtApp { text: String, policy: String },
    /// A recorded trace (ftrace text, trace-cmd's trace.dat, a Perfetto protobuf trace: told
    /// apart by content) as a scenario whose tasks replay what the trace saw them do, under
    /// `policy`, as the CLI's `import`; and the trace's own run, measured. `url` is an object
    /// URL of the file the user chose: the worker fetches the bytes itself, so a trace of
    /// 100 MB is neither read into the page nor copied through a message.
    TraceFile { url: String, name: String, policy: String },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum ImportOutput {
    /// The scenario the file became, checked by the core, with the importer's warnings;
    /// `ms` is the worker's time on it.
    Imported { imported: ImportedTrace, ms: f64, real: Option<Box<RealTrace>> },
    /// The file was refused: the message names where (line and column) or which construct.
    Failed { message: String },
    /// The worker panicked (its panic hook's message); it is dropped and the next file
    /// spawns a new one.
    Crashed { message: String },
}
