//! Thin Python bindings (`mpcc._core`): run a canonical configuration, read and
//! check the controller registry, list the MPTCP schedulers and receiver controllers. Everything
//! user-facing lives in python/mpcc.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

type Tables = BTreeMap<String, BTreeMap<String, Vec<f64>>>;

// The simulator's heap is counted, so that `max_memory_bytes` can stop a run
// that would otherwise exhaust the machine.
#[global_allocator]
static ALLOC: mpcc_sim::mem::CountingAlloc = mpcc_sim::mem::CountingAlloc;

/// Runs a canonical JSON configuration (see crates/mpcc-sim/src/config.rs) and
/// returns `(summary_json, tables, pcaps)` (pcaps: capture name -> pcap bytes). The GIL is released while simulating; in the
/// main thread it is taken back every few milliseconds to let Python handle
/// signals: Ctrl-C raises KeyboardInterrupt at once. Past `max_memory_bytes` of simulator heap the run
/// stops early and its summary's `sim.stopped_early` says why.
/// A rejected configuration raises ValueError with the simulator's one-line message.
#[pyfunction]
#[pyo3(signature = (config_json, max_memory_bytes=None))]
fn run(py: Python<'_>, config_json: String, max_memory_bytes: Option<u64>) -> PyResult<(String, Tables, Bound<'_, PyDict>)> {
    // Python runs signal handlers only in its main thread, so only a run there polls
    // for them; a run in another thread never takes the GIL back (which would abort
    // the process if the interpreter were shutting down around a daemon thread).
    let threading = py.import("threading")?;
    let on_main_thread = threading.call_method0("current_thread")?.is(&threading.call_method0("main_thread")?);
    let mut signal: Option<PyErr> = None;
    let out = py.allow_threads(|| {
        mpcc_sim::run_json_watched(&config_json, max_memory_bytes, || {
            if on_main_thread {
                signal = Python::with_gil(|py| py.check_signals().err());
            }
            signal.is_some()
        })
    });
    match out {
        Ok(out) => {
            let pcaps = PyDict::new(py);
            for (name, bytes) in out.pcaps {
                pcaps.set_item(name, pyo3::types::PyBytes::new(py, &bytes))?;
            }
            Ok((out.summary_json, out.tables, pcaps))
        }
        Err(mpcc_sim::RunError::Interrupted) => Err(signal.expect("interrupted by a signal")),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// Every registered controller as a dict {name, kind, summary, doc, params:
/// [{name, default, min, max, help}]}.
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    mpcc_algo::registry()
        .map(|a| {
            let d = PyDict::new(py);
            d.set_item("name", a.name)?;
            d.set_item("kind", a.kind)?;
            d.set_item("summary", a.summary)?;
            d.set_item("doc", a.doc)?;
            d.set_item("params", param_dicts(py, a.params)?)?;
            Ok(d)
        })
        .collect()
}

/// Tunable parameters as dicts {name, default, min, max, help}.
fn param_dicts<'py>(py: Python<'py>, params: &[mpcc_algo::ParamInfo]) -> PyResult<Vec<Bound<'py, PyDict>>> {
    params
        .iter()
        .map(|p| {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("min", p.min)?;
            pd.set_item("max", p.max)?;
            pd.set_item("help", p.help)?;
            Ok(pd)
        })
        .collect()
}

/// Checks a controller name and its parameters against the registry; raises
/// ValueError naming what is allowed.
#[pyfunction]
fn check_algorithm(name: &str, params: BTreeMap<String, f64>) -> PyResult<()> {
    mpcc_algo::registry::check(name, &mpcc_algo::Params(params))
        .map(|_| ())
        .map_err(PyValueError::new_err)
}

/// Every registered MPTCP packet scheduler as a dict {name, summary, params}; the
/// first is the default.
#[pyfunction]
fn schedulers(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    mpcc_algo::sched::REGISTRY
        .iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("name", s.name)?;
            d.set_item("summary", s.summary)?;
            d.set_item("params", param_dicts(py, s.params)?)?;
            Ok(d)
        })
        .collect()
}

/// Every registered receiver controller as a dict {name, summary, doc, params}; the
/// first is the default.
#[pyfunction]
fn receivers(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    mpcc_algo::receiver::REGISTRY
        .iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("name", r.name)?;
            d.set_item("summary", r.summary)?;
            d.set_item("doc", r.doc)?;
            d.set_item("params", param_dicts(py, r.params)?)?;
            Ok(d)
        })
        .collect()
}

/// Every TCP profile as a dict {name, description, mechanisms: {switch: value}}
/// (JSON text for the values); the first is the default.
#[pyfunction]
fn tcp_profiles(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    mpcc_sim::profile::Profile::ALL
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name())?;
            d.set_item("description", p.description())?;
            let m = PyDict::new(py);
            for (k, v) in p.mechanisms().entries() {
                m.set_item(k, v.to_string())?;
            }
            d.set_item("mechanisms", m)?;
            Ok(d)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(check_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(schedulers, m)?)?;
    m.add_function(wrap_pyfunction!(receivers, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_profiles, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", env!("MPCC_COMMIT"))?;
    Ok(())
}
