//! `shardlab._engine`: PyO3 glue over `shardlab-engine`. No logic lives here; see
//! src/shardlab/_engine.pyi for the contract.

mod error;

use error::{io_to_py, to_py, value_error, SpecError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shardlab_engine as engine;
use std::sync::Mutex;
use std::time::Duration;

// mimalloc: hyper+tokio allocate per request; with glibc malloc that cost ~25x more CPU.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pyclass(frozen, module = "shardlab._engine")]
struct LatencySummary(engine::LatencySummary);

#[pymethods]
impl LatencySummary {
    #[getter]
    fn count(&self) -> u64 {
        self.0.count
    }
    #[getter]
    fn mean_ms(&self) -> f64 {
        self.0.mean_ms
    }
    #[getter]
    fn p50_ms(&self) -> f64 {
        self.0.p50_ms
    }
    #[getter]
    fn p90_ms(&self) -> f64 {
        self.0.p90_ms
    }
    #[getter]
    fn p99_ms(&self) -> f64 {
        self.0.p99_ms
    }
    #[getter]
    fn p999_ms(&self) -> f64 {
        self.0.p999_ms
    }
    #[getter]
    fn max_ms(&self) -> f64 {
        self.0.max_ms
    }
    #[getter]
    fn min_ms(&self) -> f64 {
        self.0.min_ms
    }
    /// The histogram in HdrHistogram's compressed V2 format (for storage).
    fn encoded<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.encoded)
    }
    fn __repr__(&self) -> String {
        let s = &self.0;
        format!(
            "LatencySummary(count={}, p50_ms={:.3}, p99_ms={:.3}, max_ms={:.3})",
            s.count, s.p50_ms, s.p99_ms, s.max_ms
        )
    }
}

#[pyclass(frozen, get_all, module = "shardlab._engine")]
#[derive(Clone)]
struct Counters {
    requests: u64,
    requests_ok: u64,
    requests_item_errors: u64,
    requests_http_429: u64,
    requests_http_other: u64,
    requests_transport: u64,
    docs_sent: u64,
    docs_acked: u64,
    docs_rejected: u64,
    docs_failed: u64,
    retries: u64,
    bytes_sent: u64,
    bytes_received: u64,
    /// Summed over requests: how late each was sent after it was due (µs); divide by
    /// requests for the mean.
    schedule_lag_us: u64,
}

impl From<engine::Counters> for Counters {
    fn from(c: engine::Counters) -> Self {
        Counters {
            requests: c.requests,
            requests_ok: c.requests_ok,
            requests_item_errors: c.requests_item_errors,
            requests_http_429: c.requests_http_429,
            requests_http_other: c.requests_http_other,
            requests_transport: c.requests_transport,
            docs_sent: c.docs_sent,
            docs_acked: c.docs_acked,
            docs_rejected: c.docs_rejected,
            docs_failed: c.docs_failed,
            retries: c.retries,
            bytes_sent: c.bytes_sent,
            bytes_received: c.bytes_received,
            schedule_lag_us: c.schedule_lag_us,
        }
    }
}

#[pymethods]
impl Counters {
    fn __repr__(&self) -> String {
        format!(
            "Counters(requests={}, docs_acked={}, docs_rejected={}, docs_failed={}, retries={})",
            self.requests, self.docs_acked, self.docs_rejected, self.docs_failed, self.retries
        )
    }
}

#[pyclass(frozen, module = "shardlab._engine")]
struct Interval {
    #[pyo3(get)]
    index: u64,
    #[pyo3(get)]
    start_s: f64,
    /// The same start on the wall clock (seconds since the Unix epoch, like time.time()).
    #[pyo3(get)]
    start_unix_s: f64,
    #[pyo3(get)]
    duration_s: f64,
    #[pyo3(get)]
    counters: Py<Counters>,
    #[pyo3(get)]
    service: Py<LatencySummary>,
    #[pyo3(get)]
    response: Py<LatencySummary>,
    /// The largest single schedule lag (due -> sent) in this interval.
    #[pyo3(get)]
    schedule_lag_max_ms: f64,
}

impl Interval {
    fn new(py: Python<'_>, iv: engine::Interval) -> PyResult<Interval> {
        Ok(Interval {
            index: iv.index,
            start_s: iv.start_s,
            start_unix_s: iv.start_unix_s,
            duration_s: iv.duration_s,
            counters: Py::new(py, Counters::from(iv.counters))?,
            service: Py::new(py, LatencySummary(iv.service))?,
            response: Py::new(py, LatencySummary(iv.response))?,
            schedule_lag_max_ms: iv.schedule_lag_max_ms,
        })
    }
}

#[pymethods]
impl Interval {
    fn __repr__(&self) -> String {
        let c = self.counters.get();
        format!(
            "Interval(index={}, start_s={:.3}, duration_s={:.3}, requests={}, docs_acked={})",
            self.index, self.start_s, self.duration_s, c.requests, c.docs_acked
        )
    }
}

#[pyclass(frozen, get_all, module = "shardlab._engine")]
#[derive(Clone)]
struct ErrorSample {
    kind: String,
    count: u64,
    example: String,
}

#[pymethods]
impl ErrorSample {
    fn __repr__(&self) -> String {
        format!("ErrorSample(kind={:?}, count={})", self.kind, self.count)
    }
}

#[pyclass(frozen, module = "shardlab._engine")]
struct Totals {
    /// The wall clock at the run's start (seconds since the Unix epoch, like time.time()).
    #[pyo3(get)]
    started_unix_s: f64,
    #[pyo3(get)]
    elapsed_s: f64,
    #[pyo3(get)]
    stopped_by: &'static str,
    #[pyo3(get)]
    in_flight_abandoned: u64,
    #[pyo3(get)]
    counters: Py<Counters>,
    #[pyo3(get)]
    service: Py<LatencySummary>,
    #[pyo3(get)]
    response: Py<LatencySummary>,
    /// The largest single schedule lag (due -> sent) of the run.
    #[pyo3(get)]
    schedule_lag_max_ms: f64,
    errors: Vec<ErrorSample>,
}

#[pymethods]
impl Totals {
    #[getter]
    fn errors(&self) -> Vec<ErrorSample> {
        self.errors.clone()
    }
    fn __repr__(&self) -> String {
        let c = self.counters.get();
        format!(
            "Totals(elapsed_s={:.3}, stopped_by={:?}, requests={}, docs_acked={})",
            self.elapsed_s, self.stopped_by, c.requests, c.docs_acked
        )
    }
}

impl Totals {
    fn new(py: Python<'_>, t: engine::Totals) -> PyResult<Totals> {
        Ok(Totals {
            started_unix_s: t.started_unix_s,
            elapsed_s: t.elapsed_s,
            stopped_by: t.stopped_by.as_str(),
            in_flight_abandoned: t.in_flight_abandoned,
            counters: Py::new(py, Counters::from(t.counters))?,
            service: Py::new(py, LatencySummary(t.service))?,
            response: Py::new(py, LatencySummary(t.response))?,
            schedule_lag_max_ms: t.schedule_lag_max_ms,
            errors: t
                .errors
                .into_iter()
                .map(|e| ErrorSample {
                    kind: e.kind,
                    count: e.count,
                    example: e.example,
                })
                .collect(),
        })
    }
}

#[pyclass(frozen, module = "shardlab._engine")]
struct Engine(engine::Runner);

#[pymethods]
impl Engine {
    /// Compile and validate the spec. Raises SpecError naming the bad field.
    #[new]
    fn new(spec_json: &str) -> PyResult<Engine> {
        engine::Runner::new(spec_json).map(Engine).map_err(to_py)
    }

    /// The estimated body bytes of one bulk request, known before any connection.
    #[getter]
    fn estimated_bulk_bytes(&self) -> u64 {
        self.0.estimated_bulk_bytes()
    }

    /// Open connections and start the workers in background threads; returns at once.
    fn start(&self) -> PyResult<()> {
        self.0.start().map_err(to_py)
    }

    /// The next finished interval, or None after timeout_s (or when the run is over and
    /// every interval has been handed out). Releases the GIL while waiting.
    fn next_interval(&self, py: Python<'_>, timeout_s: f64) -> PyResult<Option<Interval>> {
        let timeout = Duration::try_from_secs_f64(timeout_s.max(0.0))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("timeout_s: {e}")))?;
        match py.detach(|| self.0.next_interval(timeout)) {
            Some(iv) => Interval::new(py, iv).map(Some),
            None => Ok(None),
        }
    }

    /// True once the run ended and every interval has been handed out.
    #[getter]
    fn finished(&self) -> bool {
        self.0.finished()
    }

    /// Stop sending new requests; in-flight ones are drained. Safe to call twice.
    fn stop(&self) {
        self.0.stop();
    }

    /// Wait for the run to end (releasing the GIL) and return its totals.
    fn finish(&self, py: Python<'_>) -> PyResult<Totals> {
        let totals = py.detach(|| self.0.finish()).map_err(to_py)?;
        Totals::new(py, totals)
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 answering every bulk request at once with a
/// success response whose item count matches the request (for tests and bench/).
#[pyclass(frozen, module = "shardlab._engine")]
struct NullSink {
    inner: Mutex<engine::NullSink>,
    port: u16,
}

#[pymethods]
impl NullSink {
    #[new]
    #[pyo3(signature = (port = 0, threads = 1))]
    fn new(port: u16, threads: usize) -> PyResult<NullSink> {
        let sink = engine::NullSink::start(port, threads.max(1)).map_err(io_to_py)?;
        Ok(NullSink {
            port: sink.port(),
            inner: Mutex::new(sink),
        })
    }
    #[getter]
    fn port(&self) -> u16 {
        self.port
    }
    #[getter]
    fn requests(&self) -> u64 {
        self.lock().requests()
    }
    /// Documents seen (NDJSON action lines).
    #[getter]
    fn docs(&self) -> u64 {
        self.lock().docs()
    }
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.lock().close());
    }
}

impl NullSink {
    fn lock(&self) -> std::sync::MutexGuard<'_, engine::NullSink> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Merge stored histograms (`LatencySummary.encoded()`) into one summary, for exact
/// percentiles over any set of intervals. Releases the GIL while merging.
#[pyfunction]
fn merge_histograms(py: Python<'_>, encoded: Vec<Bound<'_, PyBytes>>) -> PyResult<LatencySummary> {
    // Bytes objects are immutable and `encoded` keeps them alive, so their buffers may be
    // read without the GIL.
    let slices: Vec<&[u8]> = encoded.iter().map(|b| b.as_bytes()).collect();
    py.detach(|| engine::histogram::merge_encoded(&slices))
        .map(LatencySummary)
        .map_err(value_error)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    m.add("BUILD_PROFILE", profile)?;
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add_class::<LatencySummary>()?;
    m.add_class::<Counters>()?;
    m.add_class::<Interval>()?;
    m.add_class::<ErrorSample>()?;
    m.add_class::<Totals>()?;
    m.add_class::<Engine>()?;
    m.add_class::<NullSink>()?;
    m.add_function(wrap_pyfunction!(merge_histograms, m)?)?;
    // PyO3 fills `__all__`; the contract (_engine.pyi) does not declare one.
    m.delattr("__all__")?;
    Ok(())
}
