//! The runner: the public lifecycle of one run (`new`, `start`, `next_interval`, `stop`,
//! `finish`), its errors and totals. The run itself is supervised on its own thread (see
//! supervise.rs); the caller polls `next_interval` and finally calls `finish`.

use crate::histogram::LatencySummary;
use crate::interval::{Counters, ErrorSample, Interval};
use crate::shared::{lock, Shared};
use crate::spec::{Spec, SpecError};
use crate::supervise;
use crate::targets::TargetErrors;
use std::any::Any;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    Spec(SpecError),
    /// Called in the wrong state (e.g. `finish` before `start`).
    State(&'static str),
    /// The runtime could not be built or the engine thread died.
    Internal(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spec(e) => e.fmt(f),
            EngineError::State(s) => f.write_str(s),
            EngineError::Internal(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<SpecError> for EngineError {
    fn from(e: SpecError) -> Self {
        EngineError::Spec(e)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    Duration = 1,
    Docs = 2,
    Stop = 3,
    /// Every target was down for `unreachable_timeout_s`: nothing could be sent.
    Unreachable = 4,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::Docs => "docs",
            StopReason::Stop => "stop",
            StopReason::Unreachable => "unreachable",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Totals {
    /// The wall clock at the run's start (seconds since the Unix epoch); intervals' wall
    /// times are this plus their `start_s`.
    pub started_unix_s: f64,
    pub elapsed_s: f64,
    pub stopped_by: StopReason,
    pub in_flight_abandoned: u64,
    pub counters: Counters,
    pub service: LatencySummary,
    pub response: LatencySummary,
    /// The service time of requests answered with a non-2xx status.
    pub failed_service: LatencySummary,
    /// The largest single schedule lag (due -> sent) of the run.
    pub schedule_lag_max_ms: f64,
    pub errors: Vec<ErrorSample>,
    /// Per target URL, in the spec's order.
    pub target_errors: Vec<TargetErrors>,
}

pub struct Runner {
    spec: Arc<Spec>,
    shared: Arc<Shared>,
    rx: Mutex<Option<mpsc::Receiver<Interval>>>,
    taken: AtomicU64,
    thread: Mutex<Option<JoinHandle<Result<Totals, String>>>>,
    totals: Mutex<Option<Totals>>,
    started: AtomicBool,
}

impl Runner {
    pub fn new(spec_json: &str) -> Result<Runner, EngineError> {
        let spec = Spec::from_json(spec_json)?;
        let shared = Shared::new(spec.stop.docs);
        Ok(Runner {
            spec: Arc::new(spec),
            shared: Arc::new(shared),
            rx: Mutex::new(None),
            taken: AtomicU64::new(0),
            thread: Mutex::new(None),
            totals: Mutex::new(None),
            started: AtomicBool::new(false),
        })
    }

    /// The estimated body bytes of one bulk (see estimate.rs), known before any connection.
    pub fn estimated_bulk_bytes(&self) -> u64 {
        self.spec.estimated_bulk_bytes
    }

    /// Start the engine thread; returns at once.
    pub fn start(&self) -> Result<(), EngineError> {
        self.start_with(supervise::run)
    }

    /// `start`, with the engine's body as a parameter (tests inject failing bodies).
    fn start_with<F, Fut>(&self, body: F) -> Result<(), EngineError>
    where
        F: FnOnce(Arc<Spec>, Arc<Shared>, mpsc::Sender<Interval>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Totals>,
    {
        if self.started.swap(true, AcqRel) {
            return Err(EngineError::State("the engine was already started"));
        }
        // Whatever happens from here on, the end of the engine is observable: `done` is set
        // when this guard drops, on return, on panic, or when the thread cannot be spawned.
        let done = DoneGuard(self.shared.clone());
        let rt = build_runtime(self.spec.threads)?;
        let (tx, rx) = mpsc::channel();
        *lock(&self.rx) = Some(rx);
        let (spec, shared) = (self.spec.clone(), self.shared.clone());
        let handle = std::thread::Builder::new()
            .name("shardlab-engine".into())
            .spawn(move || {
                let _done = done;
                let engine = body(spec, shared, tx);
                let result = catch_unwind(AssertUnwindSafe(|| rt.block_on(engine)));
                // Never wait for tasks (or blocking DNS lookups) that are still running.
                rt.shutdown_background();
                result.map_err(|p| panic_message(p.as_ref()))
            })
            .map_err(|e| EngineError::Internal(format!("cannot start the engine thread: {e}")))?;
        *lock(&self.thread) = Some(handle);
        Ok(())
    }

    /// The next interval, or None after `timeout` or once every interval was handed out.
    pub fn next_interval(&self, timeout: Duration) -> Option<Interval> {
        let guard = lock(&self.rx);
        let rx = guard.as_ref()?;
        match rx.recv_timeout(timeout) {
            Ok(iv) => {
                self.taken.fetch_add(1, AcqRel);
                Some(iv)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    pub fn finished(&self) -> bool {
        self.shared.done.load(Acquire)
            && self.taken.load(Acquire) >= self.shared.intervals_sent.load(Acquire)
    }

    pub fn stop(&self) {
        self.shared.request_stop(StopReason::Stop);
    }

    /// Wait for the run to end and return its totals (again on later calls).
    pub fn finish(&self) -> Result<Totals, EngineError> {
        let mut totals = lock(&self.totals);
        if let Some(t) = totals.as_ref() {
            return Ok(t.clone());
        }
        let handle = lock(&self.thread)
            .take()
            .ok_or(EngineError::State("the engine was not started"))?;
        let t = handle
            .join()
            .unwrap_or_else(|p| Err(panic_message(p.as_ref())))
            .map_err(|m| EngineError::Internal(format!("the engine thread panicked: {m}")))?;
        *totals = Some(t.clone());
        Ok(t)
    }
}

/// Sets `done` when dropped, however the engine thread ends.
struct DoneGuard(Arc<Shared>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        self.0.done.store(true, Release);
    }
}

fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

/// The tokio runtime, or `Internal`. `build` reports most failures as an io::Error, but
/// tokio panics when the OS refuses to spawn a worker thread: that becomes an error too.
fn build_runtime(threads: u32) -> Result<tokio::runtime::Runtime, EngineError> {
    let built = catch_unwind(|| {
        let mut builder = if threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(threads as usize);
            b
        };
        builder.enable_all().thread_name("shardlab-engine").build()
    });
    match built {
        Ok(Ok(rt)) => Ok(rt),
        Ok(Err(e)) => Err(EngineError::Internal(format!(
            "cannot start the runtime: {e}"
        ))),
        Err(p) => Err(EngineError::Internal(format!(
            "cannot start the runtime: {}",
            panic_message(p.as_ref())
        ))),
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        // A dropped engine must not keep loading the cluster in the background.
        self.shared.request_stop(StopReason::Stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// Nothing listens on port 1 (tests that run the engine point it at a sink instead); 10
    /// docs end the run.
    const SPEC: &str = r#"{
        "targets": ["http://127.0.0.1:1"],
        "bulk_path": "/x/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 1},
        "bulk": {"docs": 5},
        "clients": 1,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": 30.0, "docs": 10},
        "interval_s": 1.0,
        "retry": {"kind": "none"},
        "threads": 1,
        "request_timeout_s": 5.0,
        "drain_timeout_s": 5.0
    }"#;

    fn wait_finished(r: &Runner) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !r.finished() {
            assert!(Instant::now() < deadline, "finished() never became true");
            let _ = r.next_interval(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_panicking_engine_thread_is_reported() {
        let r = Runner::new(SPEC).unwrap();
        r.start_with(|_, _, _| async { panic!("boom") }).unwrap();
        wait_finished(&r);
        assert!(r.next_interval(Duration::from_millis(10)).is_none());
        let e = r.finish().unwrap_err();
        assert_eq!(
            e,
            EngineError::Internal("the engine thread panicked: boom".into())
        );
        assert!(r.finished());
        let r = Runner::new(SPEC).unwrap();
        r.start_with(|_, _, _| async { std::panic::panic_any(7u8) })
            .unwrap();
        wait_finished(&r);
        assert_eq!(
            r.finish().unwrap_err().to_string(),
            "the engine thread panicked: (no message)"
        );
    }

    #[test]
    fn a_zero_interval_does_not_panic_the_engine() {
        // Validation refuses interval_s < 0.001; an unvalidated zero must not reach tokio's
        // `interval` (which panics on a zero period).
        let sink = crate::NullSink::start(0, 1).unwrap();
        let spec = SPEC.replace("127.0.0.1:1", &format!("127.0.0.1:{}", sink.port()));
        let mut r = Runner::new(&spec).unwrap();
        Arc::get_mut(&mut r.spec).unwrap().interval_s = 0.0;
        r.start().unwrap();
        wait_finished(&r);
        let t = r.finish().unwrap();
        assert_eq!(t.stopped_by, StopReason::Docs);
        assert_eq!(t.counters.docs_acked, 10);
    }
}
