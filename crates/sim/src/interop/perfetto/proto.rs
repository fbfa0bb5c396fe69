//! The few Perfetto trace messages Fairground writes and reads, as `prost` messages derived by
//! hand (no build script, no `protoc`). Each field carries the number Perfetto's own `.proto`
//! gives it (paths under `protos/perfetto/` in the Perfetto repository); a field not listed here
//! is skipped on reading, as protobuf does with unknown fields. All are proto2 `optional`
//! fields, hence the `Option`s: an absent field is not written.

use prost::Message;

/// trace/trace.proto `Trace`. A file is a sequence of these field-1 entries, so a trace can be
/// written one packet at a time: each `Trace { packet: vec![p] }` appended is the same file.
#[derive(Clone, PartialEq, Message)]
pub struct Trace {
    /// `repeated TracePacket packet = 1`
    #[prost(message, repeated, tag = "1")]
    pub packet: Vec<TracePacket>,
}

/// trace/trace_packet.proto `TracePacket` (the `data` oneof is flattened into optionals: at
/// most one is set per packet).
#[derive(Clone, PartialEq, Message)]
pub struct TracePacket {
    /// `optional uint64 timestamp = 8`
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    /// `FtraceEventBundle ftrace_events = 1`
    #[prost(message, optional, tag = "1")]
    pub ftrace_events: Option<FtraceEventBundle>,
    /// `ProcessTree process_tree = 2`
    #[prost(message, optional, tag = "2")]
    pub process_tree: Option<ProcessTree>,
    /// `TrackEvent track_event = 11`
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    /// `TrackDescriptor track_descriptor = 60`
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    /// `SystemInfo system_info = 45`
    #[prost(message, optional, tag = "45")]
    pub system_info: Option<SystemInfo>,
    /// `uint32 trusted_packet_sequence_id = 10`
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    /// `optional uint32 sequence_flags = 13`
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
}

/// `TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED` (trace/trace_packet.proto).
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;

/// common/system_info.proto `SystemInfo`.
#[derive(Clone, PartialEq, Message)]
pub struct SystemInfo {
    /// `optional Utsname utsname = 1`
    #[prost(message, optional, tag = "1")]
    pub utsname: Option<Utsname>,
}

/// common/system_info.proto `Utsname`: the kernel release tells the trace processor how to
/// read `prev_state` (4.14 and later: 0x100 is "preempted").
#[derive(Clone, PartialEq, Message)]
pub struct Utsname {
    /// `optional string sysname = 1`
    #[prost(string, optional, tag = "1")]
    pub sysname: Option<String>,
    /// `optional string release = 3`
    #[prost(string, optional, tag = "3")]
    pub release: Option<String>,
}

/// trace/ftrace/ftrace_event_bundle.proto `FtraceEventBundle`: one CPU's events.
#[derive(Clone, PartialEq, Message)]
pub struct FtraceEventBundle {
    /// `optional uint32 cpu = 1`
    #[prost(uint32, optional, tag = "1")]
    pub cpu: Option<u32>,
    /// `repeated FtraceEvent event = 2`
    #[prost(message, repeated, tag = "2")]
    pub event: Vec<FtraceEvent>,
    /// `optional bool lost_events = 3`
    #[prost(bool, optional, tag = "3")]
    pub lost_events: Option<bool>,
    /// `optional CompactSched compact_sched = 4`
    #[prost(message, optional, tag = "4")]
    pub compact_sched: Option<CompactSched>,
}

/// `FtraceEventBundle.CompactSched`: how Perfetto's recorder writes sched_switch and
/// sched_waking by default. Structure of arrays, one entry per event; timestamps are
/// delta-encoded (the first absolute); comms are indices into `intern_table`. A switch's
/// `prev_*` fields are not stored: they are the previous switch's `next_*` on that CPU.
#[derive(Clone, PartialEq, Message)]
pub struct CompactSched {
    /// `repeated string intern_table = 5`
    #[prost(string, repeated, tag = "5")]
    pub intern_table: Vec<String>,
    /// `repeated uint64 switch_timestamp = 1 [packed = true]`
    #[prost(uint64, repeated, packed = "true", tag = "1")]
    pub switch_timestamp: Vec<u64>,
    /// `repeated int64 switch_prev_state = 2 [packed = true]`
    #[prost(int64, repeated, packed = "true", tag = "2")]
    pub switch_prev_state: Vec<i64>,
    /// `repeated int32 switch_next_pid = 3 [packed = true]`
    #[prost(int32, repeated, packed = "true", tag = "3")]
    pub switch_next_pid: Vec<i32>,
    /// `repeated int32 switch_next_prio = 4 [packed = true]`
    #[prost(int32, repeated, packed = "true", tag = "4")]
    pub switch_next_prio: Vec<i32>,
    /// `repeated uint32 switch_next_comm_index = 6 [packed = true]`
    #[prost(uint32, repeated, packed = "true", tag = "6")]
    pub switch_next_comm_index: Vec<u32>,
    /// `repeated uint64 waking_timestamp = 7 [packed = true]`
    #[prost(uint64, repeated, packed = "true", tag = "7")]
    pub waking_timestamp: Vec<u64>,
    /// `repeated int32 waking_pid = 8 [packed = true]`
    #[prost(int32, repeated, packed = "true", tag = "8")]
    pub waking_pid: Vec<i32>,
    /// `repeated int32 waking_target_cpu = 9 [packed = true]`
    #[prost(int32, repeated, packed = "true", tag = "9")]
    pub waking_target_cpu: Vec<i32>,
    /// `repeated int32 waking_prio = 10 [packed = true]`
    #[prost(int32, repeated, packed = "true", tag = "10")]
    pub waking_prio: Vec<i32>,
    /// `repeated uint32 waking_comm_index = 11 [packed = true]`
    #[prost(uint32, repeated, packed = "true", tag = "11")]
    pub waking_comm_index: Vec<u32>,
}

/// trace/ftrace/ftrace_event.proto `FtraceEvent` (the `event` oneof flattened).
#[derive(Clone, PartialEq, Message)]
pub struct FtraceEvent {
    /// `optional uint64 timestamp = 1`, ns
    #[prost(uint64, optional, tag = "1")]
    pub timestamp: Option<u64>,
    /// `optional uint32 pid = 2`: the task running when the event fired
    #[prost(uint32, optional, tag = "2")]
    pub pid: Option<u32>,
    /// `SchedSwitchFtraceEvent sched_switch = 4`
    #[prost(message, optional, tag = "4")]
    pub sched_switch: Option<SchedSwitch>,
    /// `SchedWakeupFtraceEvent sched_wakeup = 17`
    #[prost(message, optional, tag = "17")]
    pub sched_wakeup: Option<SchedWake>,
    /// `SchedWakingFtraceEvent sched_waking = 20`
    #[prost(message, optional, tag = "20")]
    pub sched_waking: Option<SchedWake>,
    /// `SchedWakeupNewFtraceEvent sched_wakeup_new = 114`
    #[prost(message, optional, tag = "114")]
    pub sched_wakeup_new: Option<SchedWake>,
}

/// trace/ftrace/sched.proto `SchedSwitchFtraceEvent`.
#[derive(Clone, PartialEq, Message)]
pub struct SchedSwitch {
    /// `optional string prev_comm = 1`
    #[prost(string, optional, tag = "1")]
    pub prev_comm: Option<String>,
    /// `optional int32 prev_pid = 2`
    #[prost(int32, optional, tag = "2")]
    pub prev_pid: Option<i32>,
    /// `optional int32 prev_prio = 3`
    #[prost(int32, optional, tag = "3")]
    pub prev_prio: Option<i32>,
    /// `optional int64 prev_state = 4`: the kernel's TASK_REPORT bits, 0x100 for preempted
    #[prost(int64, optional, tag = "4")]
    pub prev_state: Option<i64>,
    /// `optional string next_comm = 5`
    #[prost(string, optional, tag = "5")]
    pub next_comm: Option<String>,
    /// `optional int32 next_pid = 6`
    #[prost(int32, optional, tag = "6")]
    pub next_pid: Option<i32>,
    /// `optional int32 next_prio = 7`
    #[prost(int32, optional, tag = "7")]
    pub next_prio: Option<i32>,
}

/// trace/ftrace/sched.proto `SchedWakingFtraceEvent`, `SchedWakeupFtraceEvent` and
/// `SchedWakeupNewFtraceEvent`: three messages with the same fields and numbers.
#[derive(Clone, PartialEq, Message)]
pub struct SchedWake {
    /// `optional string comm = 1`
    #[prost(string, optional, tag = "1")]
    pub comm: Option<String>,
    /// `optional int32 pid = 2`
    #[prost(int32, optional, tag = "2")]
    pub pid: Option<i32>,
    /// `optional int32 prio = 3`
    #[prost(int32, optional, tag = "3")]
    pub prio: Option<i32>,
    /// `optional int32 success = 4`
    #[prost(int32, optional, tag = "4")]
    pub success: Option<i32>,
    /// `optional int32 target_cpu = 5`
    #[prost(int32, optional, tag = "5")]
    pub target_cpu: Option<i32>,
}

/// trace/ps/process_tree.proto `ProcessTree`.
#[derive(Clone, PartialEq, Message)]
pub struct ProcessTree {
    /// `repeated Process processes = 1`
    #[prost(message, repeated, tag = "1")]
    pub processes: Vec<Process>,
    /// `repeated Thread threads = 2`
    #[prost(message, repeated, tag = "2")]
    pub threads: Vec<Thread>,
}

/// `ProcessTree.Process`.
#[derive(Clone, PartialEq, Message)]
pub struct Process {
    /// `optional int32 pid = 1`
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// `optional int32 ppid = 2`
    #[prost(int32, optional, tag = "2")]
    pub ppid: Option<i32>,
    /// `repeated string cmdline = 3`
    #[prost(string, repeated, tag = "3")]
    pub cmdline: Vec<String>,
}

/// `ProcessTree.Thread`.
#[derive(Clone, PartialEq, Message)]
pub struct Thread {
    /// `optional int32 tid = 1`
    #[prost(int32, optional, tag = "1")]
    pub tid: Option<i32>,
    /// `optional string name = 2`
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// `optional int32 tgid = 3`
    #[prost(int32, optional, tag = "3")]
    pub tgid: Option<i32>,
}

/// trace/track_event/track_descriptor.proto `TrackDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct TrackDescriptor {
    /// `optional uint64 uuid = 1`
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    /// `optional uint64 parent_uuid = 5`
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    /// `string name = 2` (in the `static_or_dynamic_name` oneof)
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// `optional string description = 14`
    #[prost(string, optional, tag = "14")]
    pub description: Option<String>,
    /// `optional ThreadDescriptor thread = 4`
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    /// `optional CounterDescriptor counter = 8`
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
}

/// trace/track_event/thread_descriptor.proto `ThreadDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct ThreadDescriptor {
    /// `optional int32 pid = 1`
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// `optional int64 tid = 2`
    #[prost(int64, optional, tag = "2")]
    pub tid: Option<i64>,
    /// `optional string thread_name = 5`
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
}

/// trace/track_event/counter_descriptor.proto `CounterDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct CounterDescriptor {
    /// `optional Unit unit = 3`: `UNIT_TIME_NS = 1`, `UNIT_COUNT = 2`
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
    /// `optional string unit_name = 6`
    #[prost(string, optional, tag = "6")]
    pub unit_name: Option<String>,
}

/// `CounterDescriptor.Unit.UNIT_TIME_NS` and `UNIT_COUNT`.
pub const UNIT_TIME_NS: i32 = 1;
pub const UNIT_COUNT: i32 = 2;

/// trace/track_event/track_event.proto `TrackEvent`.
#[derive(Clone, PartialEq, Message)]
pub struct TrackEvent {
    /// `optional Type type = 9`: `TYPE_INSTANT = 3`, `TYPE_COUNTER = 4`
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    /// `optional uint64 track_uuid = 11`
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// `string name = 23` (in the `name_field` oneof)
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
    /// `repeated string categories = 22`
    #[prost(string, repeated, tag = "22")]
    pub categories: Vec<String>,
    /// `int64 counter_value = 30` (in the `counter_value_field` oneof)
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    /// `repeated DebugAnnotation debug_annotations = 4`
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
}

/// `TrackEvent.Type.TYPE_INSTANT` and `TYPE_COUNTER`.
pub const TYPE_INSTANT: i32 = 3;
pub const TYPE_COUNTER: i32 = 4;

/// trace/track_event/debug_annotation.proto `DebugAnnotation` (the `name_field` and `value`
/// oneofs flattened).
#[derive(Clone, PartialEq, Message)]
pub struct DebugAnnotation {
    /// `string name = 10`
    #[prost(string, optional, tag = "10")]
    pub name: Option<String>,
    /// `bool bool_value = 2`
    #[prost(bool, optional, tag = "2")]
    pub bool_value: Option<bool>,
    /// `int64 int_value = 4`
    #[prost(int64, optional, tag = "4")]
    pub int_value: Option<i64>,
    /// `string string_value = 6`
    #[prost(string, optional, tag = "6")]
    pub string_value: Option<String>,
}
