//! The result objects Python receives: plain, frozen copies of the engine's interval and
//! totals records.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shardlab_engine as engine;

#[pyclass(frozen, module = "shardlab._engine")]
pub(crate) struct LatencySummary(pub(crate) engine::LatencySummary);

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
pub(crate) struct Counters {
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
    docs_unknown: u64,
    docs_not_sent: u64,
    connect_errors: u64,
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
            docs_unknown: c.docs_unknown,
            docs_not_sent: c.docs_not_sent,
            connect_errors: c.connect_errors,
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
            "Counters(requests={}, docs_acked={}, docs_rejected={}, docs_failed={}, \
             docs_unknown={}, docs_not_sent={}, connect_errors={}, retries={})",
            self.requests,
            self.docs_acked,
            self.docs_rejected,
            self.docs_failed,
            self.docs_unknown,
            self.docs_not_sent,
            self.connect_errors,
            self.retries
        )
    }
}

#[pyclass(frozen, module = "shardlab._engine")]
pub(crate) struct Interval {
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
    /// The service time of requests answered with a non-2xx status.
    #[pyo3(get)]
    failed_service: Py<LatencySummary>,
    /// The largest single schedule lag (due -> sent) in this interval.
    #[pyo3(get)]
    schedule_lag_max_ms: f64,
}

impl Interval {
    pub(crate) fn new(py: Python<'_>, iv: engine::Interval) -> PyResult<Interval> {
        Ok(Interval {
            index: iv.index,
            start_s: iv.start_s,
            start_unix_s: iv.start_unix_s,
            duration_s: iv.duration_s,
            counters: Py::new(py, Counters::from(iv.counters))?,
            service: Py::new(py, LatencySummary(iv.service))?,
            response: Py::new(py, LatencySummary(iv.response))?,
            failed_service: Py::new(py, LatencySummary(iv.failed_service))?,
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

/// Connection errors of one target URL over the run.
#[pyclass(frozen, get_all, module = "shardlab._engine")]
#[derive(Clone)]
pub(crate) struct TargetErrors {
    url: String,
    /// Connections that could not be made (refused, timed out, TLS handshake failed).
    connect_errors: u64,
    /// Requests sent that got no answer (the connection broke, or timed out).
    transport_errors: u64,
}

#[pymethods]
impl TargetErrors {
    fn __repr__(&self) -> String {
        format!(
            "TargetErrors(url={:?}, connect_errors={}, transport_errors={})",
            self.url, self.connect_errors, self.transport_errors
        )
    }
}

#[pyclass(frozen, get_all, module = "shardlab._engine")]
#[derive(Clone)]
pub(crate) struct ErrorSample {
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
pub(crate) struct Totals {
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
    /// The service time of requests answered with a non-2xx status.
    #[pyo3(get)]
    failed_service: Py<LatencySummary>,
    /// The largest single schedule lag (due -> sent) of the run.
    #[pyo3(get)]
    schedule_lag_max_ms: f64,
    errors: Vec<ErrorSample>,
    target_errors: Vec<TargetErrors>,
}

#[pymethods]
impl Totals {
    #[getter]
    fn errors(&self) -> Vec<ErrorSample> {
        self.errors.clone()
    }
    /// Per target URL, in the spec's order.
    #[getter]
    fn target_errors(&self) -> Vec<TargetErrors> {
        self.target_errors.clone()
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
    pub(crate) fn new(py: Python<'_>, t: engine::Totals) -> PyResult<Totals> {
        Ok(Totals {
            started_unix_s: t.started_unix_s,
            elapsed_s: t.elapsed_s,
            stopped_by: t.stopped_by.as_str(),
            in_flight_abandoned: t.in_flight_abandoned,
            counters: Py::new(py, Counters::from(t.counters))?,
            service: Py::new(py, LatencySummary(t.service))?,
            response: Py::new(py, LatencySummary(t.response))?,
            failed_service: Py::new(py, LatencySummary(t.failed_service))?,
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
            target_errors: t
                .target_errors
                .into_iter()
                .map(|e| TargetErrors {
                    url: e.url,
                    connect_errors: e.connect_errors,
                    transport_errors: e.transport_errors,
                })
                .collect(),
        })
    }
}
