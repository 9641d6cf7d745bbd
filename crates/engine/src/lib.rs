//! shardlab's native load engine, as a plain Rust library (the PyO3 glue lives in
//! crates/native). Python describes a run as a JSON spec; this crate runs it.

pub mod bulk;
mod client;
mod clock;
pub mod estimate;
pub mod failover;
pub mod generate;
pub mod histogram;
pub mod http;
pub mod interval;
pub mod response;
mod rng;
pub mod run;
pub mod schedule;
mod shared;
pub mod sink;
pub mod spec;
mod supervise;
mod targets;
pub mod tls;

pub use histogram::LatencySummary;
pub use interval::{Counters, ErrorSample, Interval};
pub use run::{EngineError, Runner, StopReason, Totals};
pub use sink::NullSink;
pub use spec::{Spec, SpecError};
pub use targets::TargetErrors;
