//! Thin Python bindings (`mpcc._core`): run a canonical configuration, export every
//! family's registry (`kinds`) and check a member's parameters (`check`). Everything
//! user-facing lives in python/mpcc.
use mpcc_core::params::{find, Info, Params, Problem, Unit};
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
fn run(
    py: Python<'_>, config_json: String, max_memory_bytes: Option<u64>,
) -> PyResult<(String, Tables, Bound<'_, PyDict>)> {
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

/// Every pluggable family's registry, as Rust owns it: `{family: [entry, ...]}`
/// with families `cc`, `scheduler`, `receiver`, `queue`, `loss`, `capacity`,
/// `app` and `distribution`; the first entry of each is the default. An entry
/// is {name, summary, doc, params: [{name, default, min, max, help, unit,
/// user_name}]} (`default` None: none; `unit` one of number, whole, flag,
/// duration, rate, size, or a structured one: file (with `format`), choice
/// (with `choices`; numbers are indices), distribution and list (with `of`, the
/// values' unit), of_field, steps; `user_name` None: the name less its unit
/// suffix) and, for controllers, `kind` ("single" or "multi").
#[pyfunction]
fn kinds(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    let cc: Vec<Bound<'_, PyDict>> = mpcc_algo::registry()
        .map(|i| {
            let d = entry(py, i)?;
            d.set_item("kind", mpcc_algo::registry::kind(i.name))?;
            Ok::<_, PyErr>(d)
        })
        .collect::<PyResult<_>>()?;
    out.set_item("cc", cc)?;
    let schedulers: Vec<Info> = schedulers();
    out.set_item("scheduler", entries(py, schedulers.iter())?)?;
    out.set_item("receiver", entries(py, mpcc_algo::receiver::registry())?)?;
    out.set_item("queue", entries(py, mpcc_net::queue::registry().into_iter())?)?;
    out.set_item("loss", entries(py, mpcc_net::loss::registry())?)?;
    out.set_item("capacity", entries(py, mpcc_net::capacity::REGISTRY.iter())?)?;
    out.set_item("app", entries(py, mpcc_sim::app::APPS.iter())?)?;
    out.set_item("distribution", entries(py, mpcc_sim::app::DISTRIBUTIONS.iter())?)?;
    Ok(out)
}

fn schedulers() -> Vec<Info> {
    mpcc_algo::sched::REGISTRY.to_vec()
}

fn entries<'py, 'a>(py: Python<'py>, list: impl Iterator<Item = &'a Info>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    list.map(|i| entry(py, i)).collect()
}

fn entry<'py>(py: Python<'py>, info: &Info) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", info.name)?;
    d.set_item("summary", info.summary)?;
    d.set_item("doc", info.doc)?;
    let params: Vec<Bound<'_, PyDict>> = info
        .params
        .iter()
        .map(|p| {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", (!p.default.is_nan()).then_some(p.default))?;
            pd.set_item("min", p.min)?;
            pd.set_item("max", p.max)?;
            pd.set_item("open_min", p.open_min)?;
            pd.set_item("help", p.help)?;
            let unit = info.unit(p.name);
            pd.set_item("unit", unit.name())?;
            pd.set_item("user_name", info.user_name(p.name))?;
            match unit {
                Unit::Dist(of) | Unit::List(of) => pd.set_item("of", of.name())?,
                Unit::Choice(words) => pd.set_item("choices", words.to_vec())?,
                Unit::File(format) => pd.set_item("format", format)?,
                _ => {}
            }
            Ok(pd)
        })
        .collect::<PyResult<_>>()?;
    d.set_item("params", params)?;
    Ok(d)
}

/// Checks the member `name` of `family` (a key of `kinds()`) with `params`, by
/// the same code the simulator runs (a queue is built, for its own checks).
/// Raises ValueError(param, message): `param` is the parameter concerned, or
/// None when the message concerns the member as a whole.
#[pyfunction]
fn check(family: &str, name: &str, params: BTreeMap<String, f64>) -> PyResult<()> {
    let params = Params(params);
    let problem = |p: Problem| PyValueError::new_err((p.param, p.msg));
    match family {
        "cc" => mpcc_algo::registry::check(name, &params)
            .map(|_| ())
            .map_err(|e| PyValueError::new_err((None::<String>, e))),
        "loss" => mpcc_net::loss::build(name, &params, mpcc_core::Rng::stream(0, 0)).map(|_| ()).map_err(problem),
        "queue" => {
            let env = mpcc_net::queue::QueueEnv { link_bps: 1e6, rng: mpcc_core::Rng::stream(0, 0) };
            mpcc_net::queue::build::<()>(name, &params, env).map(|_| ()).map_err(problem)
        }
        _ => {
            let list: Vec<Info> = match family {
                "scheduler" => schedulers(),
                "receiver" => mpcc_algo::receiver::registry().copied().collect(),
                "capacity" => mpcc_net::capacity::REGISTRY.to_vec(),
                "distribution" => mpcc_sim::app::DISTRIBUTIONS.to_vec(),
                _ => return Err(PyValueError::new_err((None::<String>, format!("unknown family '{family}'")))),
            };
            let info = find(&list, family, name).map_err(|e| PyValueError::new_err((None::<String>, e)))?;
            info.check(family, &params).map_err(problem)
        }
    }
}

/// Checks a capacity model or an application (`family` "capacity" or "app")
/// given as the JSON text of `{ kind, ...params }` (the parameters given, in
/// canonical names and units), by the simulator's code. Raises
/// ValueError(param, message) as `check` does; `param` may name an item
/// (`think_ns.shape`, `objects[1]`).
#[pyfunction]
fn check_table(family: &str, table: &str) -> PyResult<()> {
    let table: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(table).map_err(|e| PyValueError::new_err((None::<String>, e.to_string())))?;
    let checked = match family {
        "capacity" => mpcc_sim::config::check_capacity(&table),
        "app" => mpcc_sim::app::config::check_table(&table),
        _ => return Err(PyValueError::new_err((None::<String>, format!("unknown family '{family}'")))),
    };
    checked.map_err(|p| PyValueError::new_err((p.param, p.msg)))
}

/// Every TCP profile as a dict {name, description, default, mechanisms: {switch:
/// value}} (JSON text for the values); `default`: the scenario's default.
#[pyfunction]
fn tcp_profiles(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    mpcc_sim::profile::Profile::ALL
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name())?;
            d.set_item("description", p.description())?;
            d.set_item("default", *p == mpcc_sim::profile::Profile::SCENARIO_DEFAULT)?;
            let m = PyDict::new(py);
            for (k, v) in p.mechanisms().entries() {
                m.set_item(k, v.to_string())?;
            }
            d.set_item("mechanisms", m)?;
            let cc = PyDict::new(py);
            for (k, v) in p.cc_param_defaults() {
                cc.set_item(k, v)?;
            }
            d.set_item("cc_params", cc)?;
            d.set_item("mptcp_dss_bytes", p.mptcp_dss_bytes())?;
            Ok(d)
        })
        .collect()
}

/// The canonical TCP settings' defaults (`TcpConfig::default()`): the one copy the
/// scenario schema takes its own from. Only fields with a value; the switches left
/// to the profile (None) are absent.
#[pyfunction]
fn tcp_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let t = mpcc_sim::config::TcpConfig::default();
    let d = PyDict::new(py);
    d.set_item("mss", t.mss)?;
    d.set_item("header_bytes", t.header_bytes)?;
    d.set_item("initial_rto_ns", t.initial_rto_ns)?;
    d.set_item("max_rto_ns", t.max_rto_ns)?;
    d.set_item("dupthresh", t.dupthresh)?;
    d.set_item("pacing_ss_ratio", t.pacing_ss_ratio)?;
    d.set_item("pacing_ca_ratio", t.pacing_ca_ratio)?;
    Ok(d)
}

/// The names of the counters every flow and subflow reports (`flow::COUNTERS`),
/// so that the testbed can name those the kernel does not expose.
#[pyfunction]
fn counters() -> Vec<&'static str> {
    mpcc_sim::flow::COUNTERS.iter().map(|c| c.0).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_table, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(counters, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", env!("MPCC_COMMIT"))?;
    Ok(())
}
