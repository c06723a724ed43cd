//! The samples of tables mode handed to DuckDB as Arrow record batches while the text is parsed
//! (the Arrow C stream interface of the arrow-rs crates, `FFI_ArrowArrayStream` over a
//! `RecordBatchReader`, through a PyCapsule: `__arrow_c_stream__`), instead of CSV
//! text written to a FIFO and parsed again by DuckDB's CSV reader (issue 17: ingest's speed).
//!
//! `SampleStream` is made in Python and given to both sides: the pass (`write_tables_arrow`)
//! sends it batches of rows, DuckDB's scan of it (`Writer.insert_arrow`) takes them. The channel
//! between them is bounded (a few batches). The stream ends when the pass has written every row;
//! when the pass fails, the scan fails too (and the pass's error is the one reported); when the
//! load stops (`cancel`), the pass's next batch fails with BrokenPipe and the pass ends.
//!
//! Columns (SAMPLE_COLUMNS of formats/perf_script_native.py, in order): ts_ns, cpu, pid, tid as
//! int64, comm as utf8, stack_id as uint32, weight as uint64, event as utf8 (null when absent);
//! DuckDB casts them to the table's types on insert, refusing a value out of range as it did for
//! the CSV text.

use std::ffi::c_void;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use arrow_array::builder::{
    ArrayBuilder, Int64Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The samples' schema, the columns in order.
fn sample_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("ts_ns", DataType::Int64, true),
        Field::new("cpu", DataType::Int64, true),
        Field::new("pid", DataType::Int64, true),
        Field::new("tid", DataType::Int64, true),
        Field::new("comm", DataType::Utf8, false),
        Field::new("stack_id", DataType::UInt32, true),
        Field::new("weight", DataType::UInt64, false),
        Field::new("event", DataType::Utf8, true),
    ]))
}

/// Rows per batch, and the string bytes after which a batch is sent sooner (utf8 offsets are
/// 32-bit: a batch must hold less than 2 GiB of one column's text).
const BATCH_ROWS: usize = 1 << 16;
const BATCH_TEXT_BYTES: usize = 256 << 20;

/// One record batch of samples being filled (the arrow-rs builders of its columns).
pub struct SampleBatch {
    ts_ns: Int64Builder,
    cpu: Int64Builder,
    pid: Int64Builder,
    tid: Int64Builder,
    comm: StringBuilder,
    stack: UInt32Builder,
    weight: UInt64Builder,
    event: StringBuilder,
}

impl Default for SampleBatch {
    fn default() -> Self {
        SampleBatch {
            ts_ns: Int64Builder::with_capacity(BATCH_ROWS),
            cpu: Int64Builder::with_capacity(BATCH_ROWS),
            pid: Int64Builder::with_capacity(BATCH_ROWS),
            tid: Int64Builder::with_capacity(BATCH_ROWS),
            comm: StringBuilder::with_capacity(BATCH_ROWS, BATCH_ROWS * 16),
            stack: UInt32Builder::with_capacity(BATCH_ROWS),
            weight: UInt64Builder::with_capacity(BATCH_ROWS),
            event: StringBuilder::with_capacity(BATCH_ROWS, BATCH_ROWS * 8),
        }
    }
}

impl SampleBatch {
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn push(
        &mut self,
        ts_ns: Option<i64>,
        cpu: Option<i64>,
        pid: Option<i64>,
        tid: Option<i64>,
        comm: &str,
        stack: Option<u32>,
        weight: u64,
        event: Option<&str>,
    ) {
        self.ts_ns.append_option(ts_ns);
        self.cpu.append_option(cpu);
        self.pid.append_option(pid);
        self.tid.append_option(tid);
        self.comm.append_value(comm);
        self.stack.append_option(stack);
        self.weight.append_value(weight);
        self.event.append_option(event);
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Whether the batch is big enough to send.
    pub fn full(&self) -> bool {
        self.len() >= BATCH_ROWS
            || self.comm.values_slice().len() >= BATCH_TEXT_BYTES
            || self.event.values_slice().len() >= BATCH_TEXT_BYTES
    }

    fn finish(mut self, schema: SchemaRef) -> Result<RecordBatch, ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.ts_ns.finish()),
            Arc::new(self.cpu.finish()),
            Arc::new(self.pid.finish()),
            Arc::new(self.tid.finish()),
            Arc::new(self.comm.finish()),
            Arc::new(self.stack.finish()),
            Arc::new(self.weight.finish()),
            Arc::new(self.event.finish()),
        ];
        RecordBatch::try_new(schema, columns)
    }
}

// --- the stream -----------------------------------------------------------------------------

struct Shared {
    /// Taken by the scan while it waits for a batch; dropped by `cancel`.
    rx: Mutex<Option<Receiver<SampleBatch>>>,
    /// Taken by the pass (`sender`).
    tx: Mutex<Option<SyncSender<SampleBatch>>>,
    /// The pass wrote every row (the end of the channel is then the end of the stream).
    complete: AtomicBool,
    cancelled: AtomicBool,
}

/// What the pass sends its batches through.
pub struct Sender {
    tx: SyncSender<SampleBatch>,
    shared: Arc<Shared>,
}

impl Sender {
    /// Sends a batch; BrokenPipe when the load stopped reading (cancelled).
    pub fn send(&self, batch: SampleBatch) -> io::Result<()> {
        if self.shared.cancelled.load(Ordering::Acquire) || self.tx.send(batch).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the load of the samples stopped reading",
            ));
        }
        Ok(())
    }

    /// Every row was sent: the stream ends after the batches in the channel.
    pub fn complete(self) {
        self.shared.complete.store(true, Ordering::Release);
    }
}

/// The samples of one tables-mode pass as an Arrow C stream (see the module's comment).
#[pyclass(name = "SampleStream", module = "iolens_native")]
pub struct SampleStream {
    shared: Arc<Shared>,
}

impl SampleStream {
    /// The sending end, once (a second pass over one stream is an error).
    pub fn sender(&self) -> io::Result<Sender> {
        let tx = self.shared.tx.lock().expect("not poisoned").take();
        match tx {
            Some(tx) => Ok(Sender {
                tx,
                shared: Arc::clone(&self.shared),
            }),
            None => Err(io::Error::other(
                "this SampleStream was written by a pass already",
            )),
        }
    }
}

#[pymethods]
impl SampleStream {
    #[new]
    fn new() -> Self {
        let (tx, rx) = sync_channel(4);
        SampleStream {
            shared: Arc::new(Shared {
                rx: Mutex::new(Some(rx)),
                tx: Mutex::new(Some(tx)),
                complete: AtomicBool::new(false),
                cancelled: AtomicBool::new(false),
            }),
        }
    }

    /// The pass is over (or never started): a sending end it did not take is dropped, so that
    /// a scan waiting for batches sees the end (an error unless the pass completed).
    fn close(&self) {
        let tx = self.shared.tx.lock().expect("not poisoned").take();
        drop(tx);
    }

    /// The load stopped: the pass's next batch fails (BrokenPipe), batches not read are dropped.
    fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::Release);
        let rx = self.shared.rx.lock().expect("not poisoned").take();
        drop(rx);
    }

    /// The Arrow PyCapsule interface: a new C stream over the batches (DuckDB asks for one to
    /// learn the schema, another to read; the batches go to whichever reads them).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__(
        &self,
        py: Python<'_>,
        requested_schema: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = requested_schema; // the schema is fixed; DuckDB asks for none
        let reader = SampleReader {
            shared: Arc::clone(&self.shared),
            schema: sample_schema(),
        };
        let stream = Box::into_raw(Box::new(FFI_ArrowArrayStream::new(Box::new(reader))));
        // SAFETY: the capsule owns the boxed stream; its destructor drops it (which releases
        // it unless the consumer moved it out and cleared its release).
        unsafe {
            let capsule = pyo3::ffi::PyCapsule_New(
                stream as *mut c_void,
                c"arrow_array_stream".as_ptr(),
                Some(capsule_destructor),
            );
            if capsule.is_null() {
                drop(Box::from_raw(stream));
                return Err(PyErr::fetch(py));
            }
            Ok(Bound::from_owned_ptr(py, capsule).unbind())
        }
    }
}

unsafe extern "C" fn capsule_destructor(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: the capsule was made by __arrow_c_stream__ with a boxed FFI_ArrowArrayStream.
    unsafe {
        let stream = pyo3::ffi::PyCapsule_GetPointer(capsule, c"arrow_array_stream".as_ptr())
            as *mut FFI_ArrowArrayStream;
        if stream.is_null() {
            pyo3::ffi::PyErr_Clear();
            return;
        }
        drop(Box::from_raw(stream));
    }
}

/// The reading end of one C stream: the batches of the channel, then the end of the stream
/// when the pass completed, an error when it failed or the load was cancelled.
struct SampleReader {
    shared: Arc<Shared>,
    schema: SchemaRef,
}

impl Iterator for SampleReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let shared = &self.shared;
        let taken = shared.rx.lock().expect("not poisoned").take();
        let Some(rx) = taken else {
            return Some(Err(failed(
                "the samples were cancelled or read by another stream",
            )));
        };
        let got = rx.recv();
        if !shared.cancelled.load(Ordering::Acquire) {
            *shared.rx.lock().expect("not poisoned") = Some(rx);
        }
        match got {
            Ok(batch) => Some(batch.finish(Arc::clone(&self.schema))),
            Err(_) if shared.complete.load(Ordering::Acquire) => None,
            Err(_) => Some(Err(failed(
                "the perf script pass ended before its last sample (it failed)",
            ))),
        }
    }
}

/// The error the scan gets (DuckDB reports it; the Python side raises the pass's own error).
fn failed(message: &str) -> ArrowError {
    ArrowError::IoError(message.into(), io::Error::other(message))
}

impl RecordBatchReader for SampleReader {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

/// `SampleStream` as the Rust side takes it from Python.
pub fn sender_of(stream: &Bound<'_, SampleStream>) -> PyResult<Sender> {
    stream
        .borrow()
        .sender()
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, UInt32Type, UInt64Type};
    use arrow_array::Array;

    #[test]
    fn a_batch_has_the_columns_with_nulls() {
        let mut b = SampleBatch::default();
        b.push(
            Some(5),
            Some(1),
            None,
            Some(7),
            "fio",
            Some(3),
            9,
            Some("cycles"),
        );
        b.push(None, None, Some(2), Some(8), "V8 Worker", None, 1, None);
        for i in 0..7 {
            b.push(Some(i), Some(0), Some(1), Some(1), "", Some(0), 1, Some(""));
        }
        assert_eq!(b.len(), 9);
        let rb = b.finish(sample_schema()).unwrap();
        assert_eq!((rb.num_rows(), rb.num_columns()), (9, 8));
        let ts = rb.column(0).as_primitive::<Int64Type>();
        assert_eq!((ts.null_count(), ts.value(0), ts.is_null(1)), (1, 5, true));
        // no nulls: no bitmap
        assert!(rb.column(3).nulls().is_none());
        let comm = rb.column(4).as_string::<i32>();
        assert_eq!(
            (comm.value(0), comm.value(1), comm.value(2)),
            ("fio", "V8 Worker", "")
        );
        let stack = rb.column(5).as_primitive::<UInt32Type>();
        assert_eq!((stack.null_count(), stack.value(0)), (1, 3));
        assert_eq!(rb.column(6).as_primitive::<UInt64Type>().value(0), 9);
        let event = rb.column(7).as_string::<i32>();
        assert_eq!(
            (event.null_count(), event.value(0), event.is_null(1)),
            (1, "cycles", true)
        );
        assert_eq!(event.value(2), "");
    }

    #[test]
    fn the_stream_ends_after_a_complete_pass_and_fails_after_a_failed_one() {
        for complete in [true, false] {
            let stream = SampleStream::new();
            let sender = stream.sender().unwrap();
            let mut b = SampleBatch::default();
            b.push(Some(1), None, None, None, "a", None, 1, None);
            sender.send(b).unwrap();
            if complete {
                sender.complete();
            } else {
                drop(sender);
            }
            let mut reader = SampleReader {
                shared: Arc::clone(&stream.shared),
                schema: sample_schema(),
            };
            assert_eq!(reader.next().unwrap().unwrap().num_rows(), 1);
            let end = reader.next();
            if complete {
                assert!(end.is_none());
            } else {
                assert!(end
                    .unwrap()
                    .unwrap_err()
                    .to_string()
                    .contains("ended before"));
            }
        }
    }

    #[test]
    fn a_cancelled_stream_refuses_the_next_batch() {
        let stream = SampleStream::new();
        let sender = stream.sender().unwrap();
        stream.cancel();
        let err = sender.send(SampleBatch::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert!(stream.sender().is_err());
    }
}
