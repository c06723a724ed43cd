//! The tables of tables mode handed to DuckDB as Arrow record batches while the text is parsed
//! (the Arrow C stream interface of the arrow-rs crates, `FFI_ArrowArrayStream` over a
//! `RecordBatchReader`, through a PyCapsule: `__arrow_c_stream__`), instead of CSV text parsed
//! again by DuckDB's CSV reader (issue 17: ingest's speed).
//!
//! `TableStream` is made in Python and given to both sides: the pass (`write_tables_arrow`) sends
//! it batches of two tables, the samples and the distinct stacks, in one bounded channel, in the
//! order it makes them; the load reads them in runs: `next_table()` says which table the next
//! batch belongs to (None at the end), and one scan of the stream (one INSERT statement,
//! `Writer.insert_arrow`) reads the batches of that table up to the first batch of the other
//! (kept for the next run). tables.rs sends the samples while it parses, then the stacks, in the
//! one transaction of the ingest: two runs, two INSERTs.
//!
//! A batch holds one DuckDB row group (`ROW_GROUP`, 122,880 rows) of either table: DuckDB's batch
//! insert compresses and writes a batch of a full row group as soon as the next one comes, on the
//! thread that scanned it, while the INSERT runs; smaller batches wait to be merged when the
//! INSERT ends (or, for an INSERT of less than a row group in all, until the commit), serially.
//! So the samples' row groups are compressed while the text is parsed, and an INSERT's last,
//! partial row group is written when it ends (~0.05 s of one CPU at a 344 MB text's commit).
//!
//! The stream ends when the pass has written every row; when the pass fails, the scan (or
//! `next_table`) fails too (and the pass's error is the one reported); when the load stops
//! (`cancel`), the pass's next batch fails with BrokenPipe and the pass ends.
//!
//! Columns of the samples (SAMPLE_COLUMNS of formats/perf_script_native.py, in order): ts_ns,
//! cpu, pid, tid as int64, comm as utf8, stack_id as uint32, weight as uint64, event as utf8
//! (null when absent); of the stacks (STACK_COLUMNS): stack_id as uint32, folded_stack as utf8.
//! DuckDB casts them to the table's types on insert, refusing a value out of range.

use std::ffi::c_void;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use arrow_array::builder::{
    ArrayBuilder, Int64Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader, StringArray, UInt32Array};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
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

/// The stacks' schema.
fn stack_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("stack_id", DataType::UInt32, false),
        Field::new("folded_stack", DataType::Utf8, false),
    ]))
}

/// The tables a stream carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Table {
    Samples,
    Stacks,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Samples => "samples",
            Table::Stacks => "stacks",
        }
    }

    fn schema(self) -> SchemaRef {
        match self {
            Table::Samples => sample_schema(),
            Table::Stacks => stack_schema(),
        }
    }
}

/// Rows per batch of either table: DuckDB's row group (its default, 122,880 rows; see the
/// module's comment). Against batches of half a row group (samples, in runs of a row group) and
/// of 65,536 stacks, the pass and load of a 344 MB text (distinct-450k of bench/fold_ingest.py)
/// took 0.85 s instead of 0.96 s, 1.39 s of CPU instead of 1.49 s, and ~0.21 s after its last
/// sample instead of ~0.32 s (medians of 6 alternations, bench/README.md, 2026-11-28 21:58 UTC).
const ROW_GROUP: usize = 122_880;
/// The string bytes after which a batch of samples is sent sooner (utf8 offsets are 32-bit: a
/// batch must hold less than 2 GiB of one column's text).
const BATCH_TEXT_BYTES: usize = 256 << 20;
/// The bytes of text after which a batch of stacks is sent sooner.
const STACK_BATCH_BYTES: usize = 64 << 20;

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
            ts_ns: Int64Builder::with_capacity(ROW_GROUP),
            cpu: Int64Builder::with_capacity(ROW_GROUP),
            pid: Int64Builder::with_capacity(ROW_GROUP),
            tid: Int64Builder::with_capacity(ROW_GROUP),
            comm: StringBuilder::with_capacity(ROW_GROUP, ROW_GROUP * 16),
            stack: UInt32Builder::with_capacity(ROW_GROUP),
            weight: UInt64Builder::with_capacity(ROW_GROUP),
            event: StringBuilder::with_capacity(ROW_GROUP, ROW_GROUP * 8),
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
        self.len() >= ROW_GROUP
            || self.comm.values_slice().len() >= BATCH_TEXT_BYTES
            || self.event.values_slice().len() >= BATCH_TEXT_BYTES
    }

    pub fn finish(mut self) -> Result<RecordBatch, ArrowError> {
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
        RecordBatch::try_new(sample_schema(), columns)
    }
}

/// The texts of distinct stacks, one after the other in one buffer, text i ending at
/// `ends[i]`: no allocation per text (tables.rs interns a chunk's stacks, then the whole input's,
/// in these), and the stacks' Arrow column is made of slices of the buffer (`Sender::stack_texts`),
/// not a copy of the texts.
#[derive(Default)]
pub struct Texts {
    pub bytes: Vec<u8>,
    pub ends: Vec<usize>,
}

impl Texts {
    #[inline]
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    #[inline]
    pub fn push(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        self.ends.push(self.bytes.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether every text is UTF-8 on its own.
    fn utf8(&self) -> bool {
        match std::str::from_utf8(&self.bytes) {
            Ok(all) => self.ends.iter().all(|&e| all.is_char_boundary(e)),
            Err(_) => false,
        }
    }

    /// The texts with what is not UTF-8 replaced (U+FFFD), text by text.
    fn lossy(&self) -> Texts {
        let mut out = Texts::default();
        for i in 0..self.len() {
            out.push(String::from_utf8_lossy(self.get(i)).as_bytes());
        }
        out
    }
}

/// The batches of stacks `ends` cuts into (first, last + 1): a batch ends at `max_rows`
/// texts or once it holds `max_bytes` of text (at least one text each).
fn stack_batches(ends: &[usize], max_rows: usize, max_bytes: usize) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    let mut first = 0;
    while first < ends.len() {
        let start = if first == 0 { 0 } else { ends[first - 1] };
        let mut last = first + 1;
        while last < ends.len() && last - first < max_rows && ends[last - 1] - start < max_bytes {
            last += 1;
        }
        cuts.push((first, last));
        first = last;
    }
    cuts
}

// --- the stream -----------------------------------------------------------------------------

/// The batches the channel holds before the pass waits for the load: 3 batches of samples
/// (368,640, ~64% of a 344 MB text's). `iolens ingest`'s early pass fills them while the main
/// thread imports DuckDB and the rest (ingest/early.py).
const CHANNEL_PARTS: usize = 3;

/// A batch of one of the tables.
struct Part {
    table: Table,
    batch: RecordBatch,
}

/// What the load side holds: the channel, and the batch read ahead (the first of the next run).
struct Reading {
    rx: Receiver<Part>,
    pending: Option<Part>,
}

struct Shared {
    /// Taken by whoever waits for a batch; dropped by `cancel`.
    reading: Mutex<Option<Reading>>,
    /// Taken by the pass (`sender`).
    tx: Mutex<Option<SyncSender<Part>>>,
    /// The table of the run being read (set by `next_table`).
    current: Mutex<Option<Table>>,
    /// The pass wrote every row (the end of the channel is then the end of the stream).
    complete: AtomicBool,
    cancelled: AtomicBool,
}

const FAILED: &str = "the perf script pass ended before its last row (it failed)";

/// What the pass sends its batches through.
pub struct Sender {
    tx: SyncSender<Part>,
    shared: Arc<Shared>,
}

impl Sender {
    /// Sends a batch; BrokenPipe when the load stopped reading (cancelled).
    fn send(&self, table: Table, batch: Result<RecordBatch, ArrowError>) -> io::Result<()> {
        let batch = batch.map_err(io::Error::other)?;
        let part = Part { table, batch };
        if self.shared.cancelled.load(Ordering::Acquire) || self.tx.send(part).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the load of the perf script tables stopped reading",
            ));
        }
        Ok(())
    }

    pub fn samples(&self, batch: SampleBatch) -> io::Result<()> {
        self.send(Table::Samples, batch.finish())
    }

    /// Sends the stacks whose texts `texts` holds, with ids 0.., in batches of at most
    /// ROW_GROUP rows or about STACK_BATCH_BYTES of text; each batch's text column is a
    /// slice of `texts.bytes`, not a copy (at 218k stacks, 34.5 MB: the copy, its page faults and
    /// a free per stack were ~0.05-0.1 s of one CPU between the last sample and the stacks'
    /// INSERT). The texts are UTF-8 (the folder replaces bad bytes per line, as inferno does);
    /// any that were not would be replaced here the same way.
    pub fn stack_texts(&self, texts: Texts) -> io::Result<()> {
        let texts = if texts.utf8() { texts } else { texts.lossy() };
        let cuts = stack_batches(&texts.ends, ROW_GROUP, STACK_BATCH_BYTES);
        let Texts { bytes, ends } = texts;
        let values = Buffer::from_vec(bytes);
        for (first, last) in cuts {
            let start = if first == 0 { 0 } else { ends[first - 1] };
            let mut offsets = Vec::with_capacity(last - first + 1);
            offsets.push(0i32);
            for &e in &ends[first..last] {
                offsets.push(
                    i32::try_from(e - start).map_err(|_| {
                        io::Error::other("a folded stack of more than 2 GiB of text")
                    })?,
                );
            }
            let batch = StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                values.slice_with_length(start, ends[last - 1] - start),
                None,
            )
            .and_then(|text| {
                let id = UInt32Array::from_iter_values(first as u32..last as u32);
                RecordBatch::try_new(stack_schema(), vec![Arc::new(id), Arc::new(text)])
            });
            self.send(Table::Stacks, batch)?;
        }
        Ok(())
    }

    /// Every row was sent: the stream ends after the batches in the channel.
    pub fn complete(self) {
        self.shared.complete.store(true, Ordering::Release);
    }
}

/// The tables of one tables-mode pass as an Arrow C stream read in runs (see the module's
/// comment).
#[pyclass(name = "TableStream", module = "iolens_native")]
pub struct TableStream {
    shared: Arc<Shared>,
}

impl TableStream {
    fn make() -> Self {
        let (tx, rx) = sync_channel(CHANNEL_PARTS);
        TableStream {
            shared: Arc::new(Shared {
                reading: Mutex::new(Some(Reading { rx, pending: None })),
                tx: Mutex::new(Some(tx)),
                current: Mutex::new(None),
                complete: AtomicBool::new(false),
                cancelled: AtomicBool::new(false),
            }),
        }
    }

    /// The sending end, once (a second pass over one stream is an error).
    pub fn sender(&self) -> io::Result<Sender> {
        let tx = self.shared.tx.lock().expect("not poisoned").take();
        match tx {
            Some(tx) => Ok(Sender {
                tx,
                shared: Arc::clone(&self.shared),
            }),
            None => Err(io::Error::other(
                "this TableStream was written by a pass already",
            )),
        }
    }

    /// The table of the next batch (waiting for it), None at the end of a complete pass.
    fn next_run(&self) -> io::Result<Option<Table>> {
        let shared = &self.shared;
        let taken = shared.reading.lock().expect("not poisoned").take();
        let Some(mut reading) = taken else {
            return Err(io::Error::other(
                "the perf script tables were cancelled or are being read",
            ));
        };
        let got = match reading.pending.as_ref() {
            Some(p) => Ok(Some(p.table)),
            None => match reading.rx.recv() {
                Ok(p) => {
                    let t = p.table;
                    reading.pending = Some(p);
                    Ok(Some(t))
                }
                Err(_) if shared.complete.load(Ordering::Acquire) => Ok(None),
                Err(_) => Err(io::Error::other(FAILED)),
            },
        };
        if !shared.cancelled.load(Ordering::Acquire) {
            *shared.reading.lock().expect("not poisoned") = Some(reading);
        }
        *shared.current.lock().expect("not poisoned") = *got.as_ref().unwrap_or(&None);
        got
    }
}

#[pymethods]
impl TableStream {
    #[new]
    fn new() -> Self {
        TableStream::make()
    }

    /// "samples" or "stacks": the table of the next batch, which the next scan of the stream
    /// reads (with the batches after it of the same table); None when the pass wrote every row.
    /// Waits for the pass (without the GIL); raises RuntimeError when the pass failed.
    fn next_table(&self, py: Python<'_>) -> PyResult<Option<&'static str>> {
        let got = py.detach(|| self.next_run());
        got.map(|t| t.map(Table::name))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
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
        let reading = self.shared.reading.lock().expect("not poisoned").take();
        drop(reading);
    }

    /// The Arrow PyCapsule interface: a new C stream over the batches of the current run
    /// (`next_table`). DuckDB asks for one to learn the schema, another to read; the batches go
    /// to whichever reads them.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__(
        &self,
        py: Python<'_>,
        requested_schema: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = requested_schema; // the schema is fixed; DuckDB asks for none
        let Some(table) = *self.shared.current.lock().expect("not poisoned") else {
            return Err(PyRuntimeError::new_err(
                "TableStream: no run to read (next_table() first, and it returned a table)",
            ));
        };
        let reader = TableReader {
            shared: Arc::clone(&self.shared),
            table,
            schema: table.schema(),
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

/// The reading end of one C stream: the batches of one run (one table), up to the first batch
/// of the other table (kept for the next run) or the end of the pass; an error when the pass
/// failed or the load was cancelled.
struct TableReader {
    shared: Arc<Shared>,
    table: Table,
    schema: SchemaRef,
}

impl Iterator for TableReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let shared = &self.shared;
        let taken = shared.reading.lock().expect("not poisoned").take();
        let Some(mut reading) = taken else {
            return Some(Err(failed(
                "the perf script tables were cancelled or are read by another stream",
            )));
        };
        let got = match reading.pending.take() {
            Some(p) => Ok(p),
            None => reading.rx.recv(),
        };
        let out = match got {
            Ok(Part { table, batch }) if table == self.table => Some(Ok(batch)),
            Ok(p) => {
                reading.pending = Some(p); // the next run's first batch
                None
            }
            Err(_) if shared.complete.load(Ordering::Acquire) => None,
            Err(_) => Some(Err(failed(FAILED))),
        };
        if !shared.cancelled.load(Ordering::Acquire) {
            *shared.reading.lock().expect("not poisoned") = Some(reading);
        }
        out
    }
}

/// The error the scan gets (DuckDB reports it; the Python side raises the pass's own error).
fn failed(message: &str) -> ArrowError {
    ArrowError::IoError(message.into(), io::Error::other(message))
}

impl RecordBatchReader for TableReader {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

/// `TableStream` as the Rust side takes it from Python.
pub fn sender_of(stream: &Bound<'_, TableStream>) -> PyResult<Sender> {
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
        let rb = b.finish().unwrap();
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

    fn reader(stream: &TableStream) -> TableReader {
        let table = stream.next_run().unwrap().expect("a run");
        TableReader {
            shared: Arc::clone(&stream.shared),
            table,
            schema: table.schema(),
        }
    }

    fn rows(r: &mut TableReader) -> Vec<usize> {
        r.map(|b| b.unwrap().num_rows()).collect()
    }

    #[test]
    fn a_batch_of_samples_is_full_at_a_row_group() {
        let mut b = SampleBatch::default();
        for _ in 0..ROW_GROUP - 1 {
            b.push(Some(1), None, None, None, "a", Some(0), 1, None);
        }
        assert!(!b.full());
        b.push(Some(1), None, None, None, "a", Some(0), 1, None);
        assert!(b.full());
        assert_eq!(b.finish().unwrap().num_rows(), 122_880);
    }

    #[test]
    fn the_runs_follow_the_tables_of_the_batches() {
        let stream = TableStream::make();
        let sender = stream.sender().unwrap();
        let t = std::thread::spawn(move || {
            for (table, n) in [(0, 1), (0, 2), (1, 3), (0, 4), (1, 5), (1, 6)] {
                if table == 0 {
                    let mut b = SampleBatch::default();
                    for _ in 0..n {
                        b.push(Some(1), None, None, None, "a", None, 1, None);
                    }
                    sender.samples(b).unwrap();
                } else {
                    let mut t = Texts::default();
                    for _ in 0..n {
                        t.push(b"fio;f\xff");
                    }
                    sender.stack_texts(t).unwrap();
                }
            }
            sender.complete();
        });
        let mut r = reader(&stream);
        assert_eq!((r.table, rows(&mut r)), (Table::Samples, vec![1, 2]));
        let mut r = reader(&stream);
        let first = r.next().unwrap().unwrap();
        assert_eq!(first.column(1).as_string::<i32>().value(0), "fio;f\u{fffd}");
        assert_eq!((r.table, rows(&mut r)), (Table::Stacks, vec![]));
        let mut r = reader(&stream);
        assert_eq!((r.table, rows(&mut r)), (Table::Samples, vec![4]));
        let mut r = reader(&stream);
        assert_eq!((r.table, rows(&mut r)), (Table::Stacks, vec![5, 6]));
        assert_eq!(stream.next_run().unwrap(), None);
        t.join().unwrap();
    }

    #[test]
    fn the_stream_ends_after_a_complete_pass_and_fails_after_a_failed_one() {
        for complete in [true, false] {
            let stream = TableStream::make();
            let sender = stream.sender().unwrap();
            let mut b = SampleBatch::default();
            b.push(Some(1), None, None, None, "a", None, 1, None);
            sender.samples(b).unwrap();
            if complete {
                sender.complete();
            } else {
                drop(sender);
            }
            let mut r = reader(&stream);
            assert_eq!(r.next().unwrap().unwrap().num_rows(), 1);
            let end = r.next();
            if complete {
                assert!(end.is_none());
                assert_eq!(stream.next_run().unwrap(), None);
            } else {
                assert!(end
                    .unwrap()
                    .unwrap_err()
                    .to_string()
                    .contains("ended before"));
                assert!(stream.next_run().is_err());
            }
        }
    }

    #[test]
    fn the_stacks_go_in_batches_of_slices_of_their_texts() {
        assert_eq!(stack_batches(&[], 3, 10), vec![]);
        // at most 3 rows, or a batch ends at its first text reaching 10 bytes
        let ends = [2, 4, 6, 8, 20, 21, 22, 40, 41];
        assert_eq!(
            stack_batches(&ends, 3, 10),
            vec![(0, 3), (3, 5), (5, 8), (8, 9)]
        );
        assert_eq!(stack_batches(&ends, 100, 1000), vec![(0, 9)]);

        let stream = TableStream::make();
        let sender = stream.sender().unwrap();
        let n = ROW_GROUP + 3;
        let t = std::thread::spawn(move || {
            let mut t = Texts::default();
            for i in 0..n {
                t.push(format!("c;f{}", i).as_bytes());
            }
            t.push("c;é;\u{fffd}".as_bytes());
            sender.stack_texts(t).unwrap();
            sender.complete();
        });
        let mut r = reader(&stream);
        assert_eq!(r.table, Table::Stacks);
        let batches: Vec<RecordBatch> = r.by_ref().map(|b| b.unwrap()).collect();
        assert_eq!(
            batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(),
            vec![ROW_GROUP, 4]
        );
        let mut want = 0u32;
        for b in &batches {
            let ids = b.column(0).as_primitive::<UInt32Type>();
            let texts = b.column(1).as_string::<i32>();
            for row in 0..b.num_rows() {
                assert_eq!(ids.value(row), want);
                let text = if want as usize == n {
                    "c;é;\u{fffd}".to_string()
                } else {
                    format!("c;f{}", want)
                };
                assert_eq!(texts.value(row), text);
                want += 1;
            }
        }
        assert_eq!(stream.next_run().unwrap(), None);
        t.join().unwrap();
    }

    #[test]
    fn a_cancelled_stream_refuses_the_next_batch() {
        let stream = TableStream::make();
        let sender = stream.sender().unwrap();
        stream.cancel();
        let err = sender.samples(SampleBatch::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert!(stream.sender().is_err());
        assert!(stream.next_run().is_err());
    }
}
