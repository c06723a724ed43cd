//! iolens' compiled core, exposed to Python as `iolens_native` (PyO3, abi3).
//!
//! - `fold`, `fold_write`: `perf script` text -> folded stacks, exactly as inferno-collapse-perf
//!   0.12.8 folds them (see fold.rs), on several threads (see stream.rs).
//! - `write_tables_arrow`: the same parse, keeping every sample's timestamp, CPU, pid, tid, comm
//!   and event (see tables.rs), the samples and the distinct stacks handed to DuckDB as Arrow
//!   batches while the text is parsed (`TableStream`, arrow.rs).
//! - `block_perf_csv`: `perf script` text of the block tracepoints -> one CSV row per I/O, parsed
//!   and matched in one pass (see block/mod.rs).
//! - `gunzip_to_fd`: a gzip file decompressed into a file descriptor (a bundle's .tar.gz into a
//!   plain tar for bundle/reader.py; see gunzip.rs).
//! - `offcpu_csv`: `perf script` text of sched_switch / sched_waking with call chains -> the
//!   off-CPU tables as CSV, parsed and paired in one pass (see offcpu.rs).
//! - `FlameDiffInput`: the difference flame graph of two selections of perf stacks, read from
//!   DuckDB as Arrow batches (see flame_diff.rs; views/flame.py diff).
//!
//! The Python wrappers with the documented API are iolens/formats/perf_script_native.py and
//! iolens/formats/perf_block_native.py; the pure-Python references of the same rules are
//! iolens/formats/perf_script.py, and iolens/formats/perf_block.py with iolens/ingest_block.py.

pub mod arrow;
pub mod block;
pub mod bytes;
pub mod compact;
pub mod flame_diff;
pub mod fold;
pub mod fxhash;
pub mod gunzip;
pub mod map;
pub mod offcpu;
pub mod stream;
pub mod tables;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use fold::Options;
use stream::{Source, DEFAULT_CHUNK_BYTES};

fn source_of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Source::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_str()?;
        return Ok(if s == "-" {
            Source::Stdin
        } else {
            Source::Path(s.to_string())
        });
    }
    if let Ok((path, offset, len)) = obj.extract::<(String, u64, u64)>() {
        return Ok(Source::Range(path, offset, len));
    }
    Err(PyTypeError::new_err(
        "source must be a path (str, '-' for standard input), bytes, or (path, offset, length)",
    ))
}

fn threads(n: usize) -> usize {
    if n == 0 {
        stream::default_threads()
    } else {
        n
    }
}

fn chunk(n: usize) -> usize {
    if n == 0 {
        DEFAULT_CHUNK_BYTES
    } else {
        n
    }
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// The decimal digits of v (what `{}` prints), without the formatting machinery.
fn itoa(buf: &mut [u8; 20], mut v: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return &buf[i..];
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn options(
    pid: bool,
    tid: bool,
    kernel: bool,
    jit: bool,
    addrs: bool,
    skip_after: Vec<String>,
) -> Options {
    Options {
        include_pid: pid || tid,
        include_tid: tid,
        annotate_kernel: kernel,
        annotate_jit: jit,
        include_addrs: addrs,
        skip_after,
    }
}

fn info<'py>(
    py: Python<'py>,
    r: &stream::FoldResult,
    lines: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("bytes", r.bytes)?;
    d.set_item("event", r.event_filter.as_deref())?;
    d.set_item("weird_lines", r.weird_lines)?;
    d.set_item("stacks", lines)?;
    d.set_item("total", r.total())?;
    Ok(d)
}

/// Folds perf script text like inferno-collapse-perf. Returns ({folded_stack: count}, info).
///
/// source: a path ('-' = standard input) or bytes; gzip is detected. pid, tid, kernel, jit,
/// addrs, event_filter, skip_after: inferno's options (all off by default; event_filter None =
/// the first event of the input). nthreads 0 = one per CPU; chunk_bytes 0 = 4 MiB.
#[pyfunction]
#[pyo3(signature = (source, *, pid=false, tid=false, kernel=false, jit=false, addrs=false,
                    event_filter=None, skip_after=Vec::new(), nthreads=0, chunk_bytes=0))]
#[pyo3(name = "fold")]
#[allow(clippy::too_many_arguments)]
fn py_fold<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    pid: bool,
    tid: bool,
    kernel: bool,
    jit: bool,
    addrs: bool,
    event_filter: Option<String>,
    skip_after: Vec<String>,
    nthreads: usize,
    chunk_bytes: usize,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let src = source_of(source)?;
    let opt = options(pid, tid, kernel, jit, addrs, skip_after);
    let r = py.detach(|| {
        stream::fold(
            src,
            &opt,
            event_filter,
            threads(nthreads),
            chunk(chunk_bytes),
        )
    })?;
    let mut pairs: Vec<(String, u64)> = Vec::new();
    let lines = r.for_each_sorted(|k, v| {
        pairs.push((String::from_utf8_lossy(k).into_owned(), v));
        Ok(())
    })?;
    let d = PyDict::new(py);
    for (k, v) in pairs {
        d.set_item(k, v)?;
    }
    Ok((d, info(py, &r, lines)?))
}

/// Like `fold`, but writes inferno's output ("stack count" lines, sorted) to file descriptor
/// `fd` (left open). Returns info: bytes read, event kept, stacks (lines), total count.
#[pyfunction]
#[pyo3(signature = (source, fd, *, pid=false, tid=false, kernel=false, jit=false, addrs=false,
                    event_filter=None, skip_after=Vec::new(), nthreads=0, chunk_bytes=0))]
#[allow(clippy::too_many_arguments)]
fn fold_write<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    fd: i32,
    pid: bool,
    tid: bool,
    kernel: bool,
    jit: bool,
    addrs: bool,
    event_filter: Option<String>,
    skip_after: Vec<String>,
    nthreads: usize,
    chunk_bytes: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let src = source_of(source)?;
    let opt = options(pid, tid, kernel, jit, addrs, skip_after);
    let (r, lines) = py.detach(|| -> io::Result<(stream::FoldResult, usize)> {
        let r = stream::fold(
            src,
            &opt,
            event_filter,
            threads(nthreads),
            chunk(chunk_bytes),
        )?;
        // SAFETY: the caller owns fd and keeps it open; ManuallyDrop leaves it open.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
        let mut w = BufWriter::with_capacity(1 << 20, &*file);
        let mut num = itoa_buf();
        let lines = r.for_each_sorted(|k, v| {
            w.write_all(k)?;
            w.write_all(b" ")?;
            w.write_all(itoa(&mut num, v))?;
            w.write_all(b"\n")
        })?;
        w.flush()?;
        Ok((r, lines))
    })?;
    info(py, &r, lines)
}

/// Parses perf script text into two tables, the samples (ts_ns, cpu, pid, tid, comm, stack_id,
/// weight, event; every event kept) and the distinct stacks (stack_id, folded_stack), sent as
/// Arrow batches to `stream` (a TableStream that DuckDB scans while the text is parsed); the
/// stream ends after the last row only when the pass succeeds. Returns a summary dict.
#[pyfunction]
#[pyo3(signature = (source, stream, *, nthreads=0, chunk_bytes=0))]
fn write_tables_arrow<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    stream: &Bound<'py, arrow::TableStream>,
    nthreads: usize,
    chunk_bytes: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let src = source_of(source)?;
    let sender = arrow::sender_of(stream)?;
    let s = py.detach(|| {
        tables::write_tables_arrow(src, sender, threads(nthreads), chunk(chunk_bytes))
    })?;
    summary_dict(py, &s)
}

fn summary_dict<'py>(py: Python<'py>, s: &tables::Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("bytes", s.bytes)?;
    d.set_item("samples", s.samples)?;
    d.set_item("stacks", s.stacks)?;
    d.set_item("stackless_samples", s.stackless_samples)?;
    d.set_item("weird_lines", s.weird_lines)?;
    d.set_item("first_event", s.first_event.as_deref())?;
    let events = PyDict::new(py);
    for (name, n, w) in &s.events {
        events.set_item(name, (n, w))?;
    }
    d.set_item("events", events)?;
    d.set_item("ts_min_ns", s.ts_min_ns)?;
    d.set_item("ts_max_ns", s.ts_max_ns)?;
    Ok(d)
}

fn counted<'py>(py: Python<'py>, items: &[(String, u64)]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, items.iter().map(|(k, v)| (k.as_str(), *v)))
}

fn times<'py>(py: Python<'py>, v: &[i64]) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = v.iter().flat_map(|t| t.to_ne_bytes()).collect();
    PyBytes::new(py, &raw)
}

/// Parses `perf script` text of the block tracepoints, matches issue to completion and writes
/// one CSV row per I/O to `csv_path`, by the rules of PerfBlockReader and IoMatcher (see
/// block/). Returns a dict: {"fallback": reason} when the Python reader must read this input,
/// {"error": (line, kind, tracepoint, text)} for a line that reader rejects, else the counters.
/// chunk_bytes 0 = 1 MiB (tests use tiny ones).
#[pyfunction]
#[pyo3(signature = (source, csv_path, *, t0_ns=None, chunk_bytes=0))]
fn block_perf_csv<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    csv_path: String,
    t0_ns: Option<i64>,
    chunk_bytes: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let src = source_of(source)?;
    let chunk = if chunk_bytes == 0 {
        block::DEFAULT_BLOCK_CHUNK
    } else {
        chunk_bytes
    };
    let out = py.detach(|| block::perf_block_csv(src, &csv_path, t0_ns, chunk))?;
    let d = PyDict::new(py);
    match out {
        block::Outcome::Stopped(block::Stop::Fallback(why)) => d.set_item("fallback", why)?,
        block::Outcome::Stopped(block::Stop::Format {
            line,
            kind,
            name,
            text,
        }) => d.set_item("error", (line, kind, name, text))?,
        block::Outcome::Stopped(block::Stop::Io(e)) => return Err(e.into()),
        block::Outcome::Done(s) => {
            let r = &s.reader;
            let m = &s.matched;
            d.set_item("bytes", s.bytes)?;
            d.set_item("tracepoints", counted(py, &r.tracepoints.items)?)?;
            d.set_item("foreign", r.foreign)?;
            d.set_item("passthrough", r.passthrough)?;
            d.set_item("usec_times", r.usec_times)?;
            d.set_item("lost", r.lost as i64)?;
            d.set_item("lines", r.lines)?;
            d.set_item("t0_ns", m.t0_ns)?;
            d.set_item("first_ns", m.first_ns)?;
            d.set_item("last_ns", m.last_ns)?;
            d.set_item("counts", counted(py, &m.counts)?)?;
            d.set_item("actions", counted(py, &m.actions)?)?;
            d.set_item("devices", counted(py, &m.devices)?)?;
            d.set_item("unmatched_completes", times(py, &m.unmatched_completes))?;
            d.set_item("unfinished_issues", times(py, &m.unfinished_issues))?;
            d.set_item("rows", m.rows)?;
        }
    }
    Ok(d)
}

/// Decompresses every gzip member of the file `source` into file descriptor `fd` (left open),
/// stopping once more than `limit` bytes would be written. Returns (bytes written, over_limit).
/// A damaged or truncated stream raises OSError with flate2's message.
#[pyfunction]
fn gunzip_to_fd(py: Python<'_>, source: String, fd: i32, limit: u64) -> PyResult<(u64, bool)> {
    let r = py.detach(|| -> io::Result<gunzip::Gunzipped> {
        // SAFETY: the caller owns fd and keeps it open; ManuallyDrop leaves it open.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
        gunzip::gunzip_file(&source, &mut &*file, limit)
    })?;
    Ok((r.bytes, r.over_limit))
}

/// lat_bin of ingest_block.py as computed by block_perf_csv (for the tests).
#[pyfunction]
fn block_lat_bin(latency_ns: i64) -> i64 {
    block::lat_bin(latency_ns)
}

#[pymodule]
fn iolens_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_fold, m)?)?;
    m.add_function(wrap_pyfunction!(block_perf_csv, m)?)?;
    m.add_function(wrap_pyfunction!(block_lat_bin, m)?)?;
    m.add_function(wrap_pyfunction!(fold_write, m)?)?;
    m.add_function(wrap_pyfunction!(write_tables_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(gunzip_to_fd, m)?)?;
    m.add_class::<arrow::TableStream>()?;
    m.add_function(wrap_pyfunction!(offcpu::offcpu_csv_py, m)?)?;
    m.add_class::<flame_diff::FlameDiffInput>()?;
    m.add_function(wrap_pyfunction!(flame_diff::flame_noise, m)?)?;
    m.add("DEFAULT_CHUNK_BYTES", DEFAULT_CHUNK_BYTES)?;
    m.add("INFERNO_VERSION", "0.12.8")?;
    Ok(())
}
