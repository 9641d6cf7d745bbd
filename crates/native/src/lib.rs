//! `shardlab._engine`: PyO3 glue over `shardlab-engine`. No logic lives here; see
//! src/shardlab/_engine.pyi for the contract.

mod error;
mod results;

use error::{io_to_py, to_py, value_error, SpecError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use results::{Counters, ErrorSample, Interval, LatencySummary, TargetErrors, Totals};
use shardlab_engine as engine;
use std::sync::Mutex;
use std::time::Duration;

// mimalloc: hyper+tokio allocate per request; with glibc malloc that cost ~25x more CPU.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    m.add_class::<TargetErrors>()?;
    m.add_class::<Totals>()?;
    m.add_class::<Engine>()?;
    m.add_class::<NullSink>()?;
    m.add_function(wrap_pyfunction!(merge_histograms, m)?)?;
    // PyO3 fills `__all__`; the contract (_engine.pyi) does not declare one.
    m.delattr("__all__")?;
    Ok(())
}
