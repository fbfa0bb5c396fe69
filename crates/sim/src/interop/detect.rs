//! One entry for every trace format the importer reads, told apart by content: trace-cmd's
//! `trace.dat` by its magic, a Perfetto protobuf trace by its first packet, else ftrace text.

use super::ftrace_import::{import_ftrace, ImportOptions, Imported};
use super::perfetto::{import_perfetto, is_perfetto};
use super::tracedat::{import_tracedat, MAGIC};
use std::io::{self, Read};

/// What a trace file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// `/sys/kernel/tracing/trace` or `trace-cmd report` output.
    FtraceText,
    /// A Perfetto protobuf trace.
    Perfetto,
    /// trace-cmd's binary `trace.dat`.
    TraceDat,
}

impl TraceFormat {
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::FtraceText => "ftrace text",
            TraceFormat::Perfetto => "a Perfetto trace",
            TraceFormat::TraceDat => "a trace-cmd trace.dat",
        }
    }
}

/// The format of a file that starts with `head` (its first bytes; 64 KiB is plenty).
pub fn detect_format(head: &[u8]) -> TraceFormat {
    if head.starts_with(MAGIC) {
        TraceFormat::TraceDat
    } else if is_perfetto(head) {
        TraceFormat::Perfetto
    } else {
        TraceFormat::FtraceText
    }
}

/// Read a trace of any of the formats from `input`. A Perfetto trace is read as it streams;
/// ftrace text and a `trace.dat` (whose sections are found by offset) are read whole first.
pub fn import_trace(mut input: impl Read, opts: &ImportOptions) -> Result<(TraceFormat, Imported), String> {
    let mut head = Vec::with_capacity(1 << 16);
    (&mut input).take(1 << 16).read_to_end(&mut head).map_err(|e| format!("cannot read the trace: {e}"))?;
    let format = detect_format(&head);
    let mut rest = io::Cursor::new(head).chain(input);
    let imp = match format {
        TraceFormat::Perfetto => import_perfetto(rest, opts)?,
        TraceFormat::TraceDat => {
            let mut all = Vec::new();
            rest.read_to_end(&mut all).map_err(|e| format!("cannot read the trace: {e}"))?;
            import_tracedat(&all, opts)?
        }
        TraceFormat::FtraceText => {
            let mut all = Vec::new();
            rest.read_to_end(&mut all).map_err(|e| format!("cannot read the trace: {e}"))?;
            import_ftrace(as_text(&all)?, opts)?
        }
    };
    Ok((format, imp))
}

/// `import_trace` of a file already in memory (the browser's import worker holds the file it
/// was given): each reader reads it where it lies, so a large trace is not copied again.
pub fn import_trace_bytes(data: &[u8], opts: &ImportOptions) -> Result<(TraceFormat, Imported), String> {
    let format = detect_format(&data[..data.len().min(1 << 16)]);
    let imp = match format {
        TraceFormat::Perfetto => import_perfetto(data, opts)?,
        TraceFormat::TraceDat => import_tracedat(data, opts)?,
        TraceFormat::FtraceText => import_ftrace(as_text(data)?, opts)?,
    };
    Ok((format, imp))
}

fn as_text(data: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(data)
        .map_err(|e| format!("not a trace Fairground reads: neither trace.dat, Perfetto protobuf nor text (byte {} is not UTF-8)", e.valid_up_to()))
}
