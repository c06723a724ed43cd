//! The samples of tables mode handed to DuckDB as Arrow record batches while the text is parsed
//! (the Arrow C stream interface, through a PyCapsule: `__arrow_c_stream__`), instead of CSV
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

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

#[repr(C)]
pub struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

const NULLABLE: i64 = 2; // ARROW_FLAG_NULLABLE
const EIO: c_int = 5;

// --- schema ---------------------------------------------------------------------------------

struct SchemaPrivate {
    _format: CString,
    _name: CString,
    children: Box<[*mut ArrowSchema]>,
}

fn schema(format: &str, name: &str, nullable: bool, children: Vec<ArrowSchema>) -> ArrowSchema {
    let format = CString::new(format).expect("no NUL in a format");
    let name = CString::new(name).expect("no NUL in a name");
    let children: Box<[*mut ArrowSchema]> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let private = Box::new(SchemaPrivate {
        _format: format,
        _name: name,
        children,
    });
    ArrowSchema {
        format: private._format.as_ptr(),
        name: private._name.as_ptr(),
        metadata: ptr::null(),
        flags: if nullable { NULLABLE } else { 0 },
        n_children: private.children.len() as i64,
        children: private.children.as_ptr() as *mut *mut ArrowSchema,
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: Box::into_raw(private) as *mut c_void,
    }
}

unsafe extern "C" fn release_schema(s: *mut ArrowSchema) {
    // SAFETY: s was made by `schema` (its private data is a SchemaPrivate, its children boxed
    // schemas of the same kind) and is released once: release is cleared here.
    unsafe {
        if s.is_null() || (*s).release.is_none() {
            return;
        }
        let private = Box::from_raw((*s).private_data as *mut SchemaPrivate);
        for &child in private.children.iter() {
            if let Some(release) = (*child).release {
                release(child);
            }
            drop(Box::from_raw(child));
        }
        (*s).release = None;
    }
}

/// The samples' schema: a struct of the columns, as the Arrow C stream interface describes a
/// record batch.
fn sample_schema() -> ArrowSchema {
    let cols = [
        ("ts_ns", "l", true),
        ("cpu", "l", true),
        ("pid", "l", true),
        ("tid", "l", true),
        ("comm", "u", false),
        ("stack_id", "I", true),
        ("weight", "L", false),
        ("event", "u", true),
    ];
    let children = cols
        .iter()
        .map(|&(n, f, nullable)| schema(f, n, nullable, Vec::new()))
        .collect();
    schema("+s", "", false, children)
}

// --- arrays ---------------------------------------------------------------------------------

/// The memory of one array's buffers (typed, so that each is aligned for its values).
enum Buffer {
    Bytes(Vec<u8>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
}

impl Buffer {
    fn ptr(&self) -> *const c_void {
        match self {
            Buffer::Bytes(v) => v.as_ptr() as *const c_void,
            Buffer::I64(v) => v.as_ptr() as *const c_void,
            Buffer::U64(v) => v.as_ptr() as *const c_void,
            Buffer::U32(v) => v.as_ptr() as *const c_void,
            Buffer::I32(v) => v.as_ptr() as *const c_void,
        }
    }
}

struct ArrayPrivate {
    _buffers: Vec<Option<Buffer>>,
    pointers: Box<[*const c_void]>,
    children: Box<[*mut ArrowArray]>,
}

fn array(
    length: usize,
    null_count: usize,
    buffers: Vec<Option<Buffer>>,
    children: Vec<ArrowArray>,
) -> ArrowArray {
    let pointers: Box<[*const c_void]> = buffers
        .iter()
        .map(|b| b.as_ref().map_or(ptr::null(), Buffer::ptr))
        .collect();
    let children: Box<[*mut ArrowArray]> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let private = Box::new(ArrayPrivate {
        _buffers: buffers,
        pointers,
        children,
    });
    ArrowArray {
        length: length as i64,
        null_count: null_count as i64,
        offset: 0,
        n_buffers: private.pointers.len() as i64,
        n_children: private.children.len() as i64,
        buffers: private.pointers.as_ptr() as *mut *const c_void,
        children: private.children.as_ptr() as *mut *mut ArrowArray,
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: Box::into_raw(private) as *mut c_void,
    }
}

unsafe extern "C" fn release_array(a: *mut ArrowArray) {
    // SAFETY: a was made by `array` and is released once (release is cleared here).
    unsafe {
        if a.is_null() || (*a).release.is_none() {
            return;
        }
        let private = Box::from_raw((*a).private_data as *mut ArrayPrivate);
        for &child in private.children.iter() {
            if let Some(release) = (*child).release {
                release(child);
            }
            drop(Box::from_raw(child));
        }
        (*a).release = None;
    }
}

/// A validity bitmap being filled (bit set: the value is there).
#[derive(Default)]
struct Validity {
    bits: Vec<u8>,
    nulls: usize,
}

impl Validity {
    #[inline]
    fn push(&mut self, i: usize, valid: bool) {
        if i.is_multiple_of(8) {
            self.bits.push(0);
        }
        if valid {
            *self.bits.last_mut().expect("pushed above") |= 1 << (i % 8);
        } else {
            self.nulls += 1;
        }
    }

    /// The bitmap buffer (none when nothing is null) and the null count.
    fn finish(self) -> (Option<Buffer>, usize) {
        if self.nulls == 0 {
            (None, 0)
        } else {
            (Some(Buffer::Bytes(self.bits)), self.nulls)
        }
    }
}

#[derive(Default)]
struct Ints {
    values: Vec<i64>,
    valid: Validity,
}

impl Ints {
    #[inline]
    fn push(&mut self, v: Option<i64>) {
        self.valid.push(self.values.len(), v.is_some());
        self.values.push(v.unwrap_or(0));
    }

    fn finish(self) -> ArrowArray {
        let n = self.values.len();
        let (validity, nulls) = self.valid.finish();
        array(
            n,
            nulls,
            vec![validity, Some(Buffer::I64(self.values))],
            Vec::new(),
        )
    }
}

struct Strings {
    offsets: Vec<i32>,
    data: Vec<u8>,
    valid: Validity,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            offsets: vec![0],
            data: Vec::new(),
            valid: Validity::default(),
        }
    }
}

impl Strings {
    #[inline]
    fn push(&mut self, s: Option<&str>) {
        self.valid.push(self.offsets.len() - 1, s.is_some());
        if let Some(s) = s {
            self.data.extend_from_slice(s.as_bytes());
        }
        self.offsets.push(self.data.len() as i32);
    }

    fn finish(self) -> ArrowArray {
        let n = self.offsets.len() - 1;
        let (validity, nulls) = self.valid.finish();
        array(
            n,
            nulls,
            vec![
                validity,
                Some(Buffer::I32(self.offsets)),
                Some(Buffer::Bytes(self.data)),
            ],
            Vec::new(),
        )
    }
}

/// One record batch of samples being filled.
#[derive(Default)]
pub struct SampleBatch {
    ts_ns: Ints,
    cpu: Ints,
    pid: Ints,
    tid: Ints,
    comm: Strings,
    stack: Vec<u32>,
    stack_valid: Validity,
    weight: Vec<u64>,
    event: Strings,
}

/// Rows per batch, and the string bytes after which a batch is sent sooner (utf8 offsets are
/// 32-bit: a batch must hold less than 2 GiB of one column's text).
const BATCH_ROWS: usize = 1 << 16;
const BATCH_TEXT_BYTES: usize = 256 << 20;

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
        self.ts_ns.push(ts_ns);
        self.cpu.push(cpu);
        self.pid.push(pid);
        self.tid.push(tid);
        self.comm.push(Some(comm));
        self.stack_valid.push(self.stack.len(), stack.is_some());
        self.stack.push(stack.unwrap_or(0));
        self.weight.push(weight);
        self.event.push(event);
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
            || self.comm.data.len() >= BATCH_TEXT_BYTES
            || self.event.data.len() >= BATCH_TEXT_BYTES
    }

    fn into_array(self) -> ArrowArray {
        let n = self.len();
        let (stack_validity, stack_nulls) = self.stack_valid.finish();
        let children = vec![
            self.ts_ns.finish(),
            self.cpu.finish(),
            self.pid.finish(),
            self.tid.finish(),
            self.comm.finish(),
            array(
                n,
                stack_nulls,
                vec![stack_validity, Some(Buffer::U32(self.stack))],
                Vec::new(),
            ),
            array(n, 0, vec![None, Some(Buffer::U64(self.weight))], Vec::new()),
            self.event.finish(),
        ];
        array(n, 0, vec![None], children)
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
        let private = Box::new(StreamPrivate {
            shared: Arc::clone(&self.shared),
            error: None,
        });
        let stream = Box::into_raw(Box::new(ArrowArrayStream {
            get_schema: Some(stream_get_schema),
            get_next: Some(stream_get_next),
            get_last_error: Some(stream_get_last_error),
            release: Some(stream_release),
            private_data: Box::into_raw(private) as *mut c_void,
        }));
        // SAFETY: the capsule owns the boxed stream; its destructor releases it (unless the
        // consumer moved it out, which clears its release) and frees the box.
        unsafe {
            let capsule = pyo3::ffi::PyCapsule_New(
                stream as *mut c_void,
                c"arrow_array_stream".as_ptr(),
                Some(capsule_destructor),
            );
            if capsule.is_null() {
                stream_release(stream);
                drop(Box::from_raw(stream));
                return Err(PyErr::fetch(py));
            }
            Ok(Bound::from_owned_ptr(py, capsule).unbind())
        }
    }
}

unsafe extern "C" fn capsule_destructor(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: the capsule was made by __arrow_c_stream__ with a boxed ArrowArrayStream.
    unsafe {
        let stream = pyo3::ffi::PyCapsule_GetPointer(capsule, c"arrow_array_stream".as_ptr())
            as *mut ArrowArrayStream;
        if stream.is_null() {
            pyo3::ffi::PyErr_Clear();
            return;
        }
        if let Some(release) = (*stream).release {
            release(stream);
        }
        drop(Box::from_raw(stream));
    }
}

struct StreamPrivate {
    shared: Arc<Shared>,
    error: Option<CString>,
}

unsafe extern "C" fn stream_get_schema(s: *mut ArrowArrayStream, out: *mut ArrowSchema) -> c_int {
    // SAFETY: out points to writable memory for one schema (the interface's contract).
    unsafe { out.write(sample_schema()) };
    let _ = s;
    0
}

unsafe extern "C" fn stream_get_next(s: *mut ArrowArrayStream, out: *mut ArrowArray) -> c_int {
    // SAFETY: s is a live stream made by __arrow_c_stream__; out is writable (the contract).
    unsafe {
        let private = &mut *((*s).private_data as *mut StreamPrivate);
        let shared = Arc::clone(&private.shared);
        let taken = shared.rx.lock().expect("not poisoned").take();
        let Some(rx) = taken else {
            private.error = Some(c"the samples were cancelled or read by another stream".into());
            return EIO;
        };
        let got = rx.recv();
        if !shared.cancelled.load(Ordering::Acquire) {
            *shared.rx.lock().expect("not poisoned") = Some(rx);
        }
        match got {
            Ok(batch) => {
                out.write(batch.into_array());
                0
            }
            Err(_) if shared.complete.load(Ordering::Acquire) => {
                // the end of the stream: a released array
                out.write(ArrowArray {
                    length: 0,
                    null_count: 0,
                    offset: 0,
                    n_buffers: 0,
                    n_children: 0,
                    buffers: ptr::null_mut(),
                    children: ptr::null_mut(),
                    dictionary: ptr::null_mut(),
                    release: None,
                    private_data: ptr::null_mut(),
                });
                0
            }
            Err(_) => {
                private.error =
                    Some(c"the perf script pass ended before its last sample (it failed)".into());
                EIO
            }
        }
    }
}

unsafe extern "C" fn stream_get_last_error(s: *mut ArrowArrayStream) -> *const c_char {
    // SAFETY: s is a live stream made by __arrow_c_stream__.
    unsafe {
        let private = &*((*s).private_data as *const StreamPrivate);
        private.error.as_deref().map_or(ptr::null(), CStr::as_ptr)
    }
}

unsafe extern "C" fn stream_release(s: *mut ArrowArrayStream) {
    // SAFETY: s was made by __arrow_c_stream__ and is released once (release is cleared).
    unsafe {
        if s.is_null() || (*s).release.is_none() {
            return;
        }
        drop(Box::from_raw((*s).private_data as *mut StreamPrivate));
        (*s).release = None;
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

    unsafe fn buffer<T: Copy>(a: &ArrowArray, i: usize, n: usize) -> Vec<T> {
        unsafe { std::slice::from_raw_parts(*a.buffers.add(i) as *const T, n).to_vec() }
    }

    #[test]
    fn a_batch_is_a_struct_of_the_columns_with_nulls_and_offsets() {
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
        let mut a = b.into_array();
        unsafe {
            assert_eq!((a.length, a.n_children, a.null_count), (9, 8, 0));
            let col = |i: usize| &**a.children.add(i);
            let ts = col(0);
            assert_eq!((ts.null_count, ts.n_buffers), (1, 2));
            assert_eq!(buffer::<u8>(ts, 0, 2), vec![0b1111_1101, 0b1]);
            assert_eq!(buffer::<i64>(ts, 1, 3), vec![5, 0, 0]);
            // no nulls: no bitmap
            assert!((*col(3).buffers).is_null() && col(3).null_count == 0);
            let comm = col(4);
            assert_eq!(buffer::<i32>(comm, 1, 4), vec![0, 3, 12, 12]);
            assert_eq!(buffer::<u8>(comm, 2, 12), b"fioV8 Worker".to_vec());
            let stack = col(5);
            assert_eq!(
                (stack.null_count, buffer::<u32>(stack, 1, 2)),
                (1, vec![3, 0])
            );
            assert_eq!(buffer::<u64>(col(6), 1, 2), vec![9, 1]);
            let event = col(7);
            assert_eq!(event.null_count, 1);
            assert_eq!(buffer::<i32>(event, 1, 3), vec![0, 6, 6]);
            release_array(&mut a);
        }
        assert!(a.release.is_none());
    }

    #[test]
    fn the_schema_names_the_columns_in_order() {
        let mut s = sample_schema();
        unsafe {
            assert_eq!(CStr::from_ptr(s.format).to_bytes(), b"+s");
            let names: Vec<_> = (0..s.n_children as usize)
                .map(|i| {
                    let c = &**s.children.add(i);
                    let name = CStr::from_ptr(c.name).to_str().unwrap().to_string();
                    let format = CStr::from_ptr(c.format).to_str().unwrap().to_string();
                    (name, format, c.flags == NULLABLE)
                })
                .collect();
            assert_eq!(
                names,
                [
                    ("ts_ns", "l", true),
                    ("cpu", "l", true),
                    ("pid", "l", true),
                    ("tid", "l", true),
                    ("comm", "u", false),
                    ("stack_id", "I", true),
                    ("weight", "L", false),
                    ("event", "u", true),
                ]
                .map(|(n, f, x)| (n.to_string(), f.to_string(), x))
            );
            release_schema(&mut s);
        }
        assert!(s.release.is_none());
    }
}
