//! Reading the input in chunks and folding them on several threads.
//!
//! A chunk ends right after a blank line whenever the chunk holds one: the folder's state is
//! reset by a blank line (inferno's `after_event`), so such chunks fold independently, in any
//! order, on any thread, exactly as inferno's own threads do. When a chunk holds no blank line
//! (a single huge stack, or a file without call graphs) it ends at a line boundary instead and
//! is marked `continues`: the next chunk then goes to the same thread, which keeps its state.
//! Memory stays bounded by (threads x queue depth x chunk size) plus the folded map.
//!
//! A plain (not gzip) regular file is mapped into memory instead of read (map.rs): the chunks
//! are then ranges of the mapping, with no copy of the text and no buffer to allocate and zero.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::map::Map;

use crate::compact::{for_each_sorted_parts, CompactFold};
use crate::fold::{Emit, Folder, Options};

pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;
const QUEUE_DEPTH: usize = 2;
/// The chunks read before the event to keep is known (folded on the calling thread alone).
const PROBE_CHUNK_BYTES: usize = 64 << 10;

/// Where the text comes from.
pub enum Source {
    Path(String),
    Stdin,
    Bytes(Vec<u8>),
    /// `len` bytes at `offset` of the file at the path (a member of a plain tar archive).
    Range(String, u64, u64),
}

/// Opens the source, decompressing gzip (detected from the first two bytes, like `open_text`).
pub fn open(source: Source) -> io::Result<Box<dyn Read + Send>> {
    match source {
        Source::Path(p) => open_file(File::open(p)?),
        Source::Stdin => gunzip_if(BufReader::with_capacity(1 << 20, Box::new(io::stdin()))),
        Source::Bytes(b) => gunzip_if(BufReader::new(Box::new(io::Cursor::new(b)))),
        Source::Range(p, offset, len) => {
            let mut file = File::open(p)?;
            file.seek(SeekFrom::Start(offset))?;
            gunzip_if(BufReader::with_capacity(1 << 20, Box::new(file.take(len))))
        }
    }
}

fn open_file(file: File) -> io::Result<Box<dyn Read + Send>> {
    gunzip_if(BufReader::with_capacity(1 << 20, Box::new(file)))
}

fn gunzip_if(mut reader: BufReader<Box<dyn Read + Send>>) -> io::Result<Box<dyn Read + Send>> {
    let head = loop {
        match reader.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

/// The text to cut into chunks: a mapped plain file, or a stream to read.
pub enum Input {
    Mapped(Arc<Map>),
    Reader(Box<dyn Read + Send>),
}

/// Like `open`, but a plain regular file is mapped rather than read.
pub fn open_input(source: Source) -> io::Result<Input> {
    if let Source::Path(p) = &source {
        let file = File::open(p)?;
        if let Some(map) = Map::plain_file(&file)? {
            return Ok(Input::Mapped(Arc::new(map)));
        }
        return open_file(file).map(Input::Reader);
    }
    open(source).map(Input::Reader)
}

/// The buffers of owned chunks, given back when a chunk is dropped (once its worker has folded
/// it) and filled again by the chunker: a buffer is allocated, faulted in and zeroed once, not
/// once per chunk (a 344 MB text is 86 chunks of 4 MiB: 0.06-0.1 s of CPU of the reading thread
/// went to zeroing fresh buffers and to their page faults). The buffers in the pool are at most
/// those that were in flight at once, so the memory of a pass does not grow.
struct Pool {
    bufs: Mutex<Vec<Vec<u8>>>,
    /// A buffer larger than this (grown for a very long line) is freed, not kept.
    keep_bytes: usize,
}

const POOL_MAX: usize = 32;

impl Pool {
    fn take(&self) -> Vec<u8> {
        self.bufs
            .lock()
            .map(|mut b| b.pop())
            .unwrap_or(None)
            .unwrap_or_default()
    }

    fn give(&self, buf: Vec<u8>) {
        if buf.capacity() <= self.keep_bytes {
            if let Ok(mut bufs) = self.bufs.lock() {
                if bufs.len() < POOL_MAX {
                    bufs.push(buf);
                }
            }
        }
    }
}

enum Data {
    /// The chunk is `buf[..len]`; the buffer goes back to the pool when the chunk is dropped.
    Owned(Vec<u8>, usize, Arc<Pool>),
    Mapped(Arc<Map>, usize, usize),
}

pub struct Chunk {
    data: Data,
    /// The chunk ends inside a sample: the next chunk continues this one's state.
    pub continues: bool,
    /// The chunk reaches the end of the input (the final chunk may be empty).
    pub last: bool,
    pub seq: u64,
}

impl Chunk {
    /// The chunk's text.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Owned(v, len, _) => &v[..*len],
            Data::Mapped(m, start, end) => &m.bytes()[*start..*end],
        }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        if let Data::Owned(buf, _, pool) = &mut self.data {
            pool.give(std::mem::take(buf));
        }
    }
}

pub struct Chunker {
    src: Input,
    /// Mapped input: where the next chunk starts.
    pos: usize,
    target: usize,
    carry: Vec<u8>,
    eof: bool,
    done: bool,
    seq: u64,
    pub bytes: u64,
    pool: Arc<Pool>,
}

#[inline]
fn is_blank_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The end (exclusive) of the last blank line of `buf` that is followed by more text, if any.
fn last_blank_line_end(buf: &[u8]) -> Option<usize> {
    let mut end = memchr::memrchr(b'\n', buf)?; // index of the newline ending the line
    loop {
        let start = memchr::memrchr(b'\n', &buf[..end])
            .map(|i| i + 1)
            .unwrap_or(0);
        if buf[start..end].iter().all(|&b| is_blank_byte(b)) {
            return Some(end + 1);
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}

impl Chunker {
    pub fn new(src: Input, target: usize) -> Self {
        Chunker {
            src,
            pos: 0,
            target: target.max(1),
            carry: Vec::new(),
            eof: false,
            done: false,
            seq: 0,
            bytes: 0,
            pool: Arc::new(Pool {
                bufs: Mutex::new(Vec::new()),
                keep_bytes: target.max(1).saturating_mul(2).saturating_add(1),
            }),
        }
    }

    /// The size of the chunks to come (at least 1 byte).
    pub fn set_target(&mut self, target: usize) {
        self.target = target.max(1);
    }

    /// Reads into `buf` after its first `filled` bytes until it holds `want` bytes or the input
    /// ends. `buf`'s length is how much of it was ever written (a buffer from the pool is not
    /// zeroed again): only a part never used is zeroed, 1 MiB at a time.
    fn fill(&mut self, buf: &mut Vec<u8>, filled: &mut usize, want: usize) -> io::Result<()> {
        let Input::Reader(src) = &mut self.src else {
            return Ok(());
        };
        while *filled < want && !self.eof {
            // read at most 1 MiB at a time: a huge target must not allocate (or zero) up front
            let end = *filled + (want - *filled).min(1 << 20);
            if buf.len() < end {
                buf.resize(end, 0);
            }
            let n = loop {
                match src.read(&mut buf[*filled..end]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            *filled += n;
            self.bytes += n as u64;
            if n == 0 {
                self.eof = true;
            }
        }
        Ok(())
    }

    /// The next chunk; always ends with one chunk whose `last` is set (possibly empty).
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk>> {
        if self.done {
            return Ok(None);
        }
        if let Input::Mapped(map) = &self.src {
            let map = Arc::clone(map);
            return Ok(Some(self.next_mapped(map)));
        }
        // A buffer of the pool, or a new one reserved whole at once: growing by doubling would
        // leave up to twice the memory in every chunk in flight.
        let carry = std::mem::take(&mut self.carry);
        let mut buf = self.pool.take();
        if buf.capacity() == 0 {
            buf.reserve_exact(self.target.max(carry.len()) + 1);
        }
        if buf.len() < carry.len() {
            buf.resize(carry.len(), 0);
        }
        buf[..carry.len()].copy_from_slice(&carry);
        let mut filled = carry.len();
        let mut want = self.target;
        loop {
            self.fill(&mut buf, &mut filled, want)?;
            if self.eof {
                self.done = true;
                return Ok(Some(self.make_owned(buf, filled, false, true)));
            }
            let text = &buf[..filled];
            let split = match last_blank_line_end(text) {
                Some(p) => Some((p, false)),
                None => memchr::memrchr(b'\n', text).map(|p| (p + 1, true)),
            };
            match split {
                Some((p, continues)) => {
                    self.carry = buf[p..filled].to_vec();
                    return Ok(Some(self.make_owned(buf, p, continues, false)));
                }
                // one line longer than the chunk: read on
                None => want = filled + self.target,
            }
        }
    }

    /// The next chunk of a mapped input: the same cuts as `next_chunk` makes in a stream.
    fn next_mapped(&mut self, map: Arc<Map>) -> Chunk {
        let len = map.bytes().len();
        let start = self.pos;
        let mut want = start + self.target;
        loop {
            if want >= len {
                self.done = true;
                self.pos = len;
                self.bytes += (len - start) as u64;
                return self.make(Data::Mapped(map, start, len), false, true);
            }
            let buf = &map.bytes()[start..want];
            let split = match last_blank_line_end(buf) {
                Some(p) => Some((p, false)),
                None => memchr::memrchr(b'\n', buf).map(|p| (p + 1, true)),
            };
            match split {
                Some((p, continues)) => {
                    self.pos = start + p;
                    self.bytes += p as u64;
                    return self.make(Data::Mapped(map, start, start + p), continues, false);
                }
                None => want += self.target,
            }
        }
    }

    fn make_owned(&mut self, buf: Vec<u8>, len: usize, continues: bool, last: bool) -> Chunk {
        let pool = Arc::clone(&self.pool);
        self.make(Data::Owned(buf, len, pool), continues, last)
    }

    fn make(&mut self, data: Data, continues: bool, last: bool) -> Chunk {
        let seq = self.seq;
        self.seq += 1;
        Chunk {
            data,
            continues,
            last,
            seq,
        }
    }
}

pub fn default_threads() -> usize {
    thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Sends chunks to `nthreads` worker queues: round robin, except that a chunk continuing the
/// previous one goes to the same worker.
fn dispatch(
    chunker: &mut Chunker,
    txs: &[SyncSender<Chunk>],
    mut prev_continues: bool,
) -> io::Result<()> {
    let mut w = txs.len() - 1;
    while let Some(c) = chunker.next_chunk()? {
        if !prev_continues {
            w = (w + 1) % txs.len();
        }
        prev_continues = c.continues;
        if txs[w].send(c).is_err() {
            break; // the worker died (panic): join reports it
        }
    }
    Ok(())
}

fn join<T>(h: thread::ScopedJoinHandle<'_, T>) -> io::Result<T> {
    h.join()
        .map_err(|_| io::Error::other("iolens_native: a worker thread panicked"))
}

impl FoldResult {
    /// Calls f(text, count) for every folded stack, sorted as inferno prints them; returns the
    /// number of lines.
    pub fn for_each_sorted(
        &self,
        f: impl FnMut(&[u8], u64) -> io::Result<()>,
    ) -> io::Result<usize> {
        for_each_sorted_parts(&self.parts, f)
    }

    /// The sum of the counts.
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.total()).sum()
    }
}

pub struct FoldResult {
    /// One fold per thread (the first holds what was folded before the workers started).
    pub parts: Vec<CompactFold>,
    pub bytes: u64,
    pub event_filter: Option<String>,
    pub weird_lines: u64,
}

/// Folds the whole input like `inferno-collapse-perf` with `opt` (and `--event-filter`).
pub fn fold(
    source: Source,
    opt: &Options,
    event_filter: Option<String>,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<FoldResult> {
    let mut chunker = Chunker::new(open_input(source)?, chunk_bytes);
    let nthreads = nthreads.max(1);
    if nthreads > 1 {
        chunker.set_target(chunk_bytes.min(PROBE_CHUNK_BYTES));
    }
    let mut result = CompactFold::default();
    let mut main = Folder::new(opt, event_filter, false);

    // Until the event to keep is known (the first event of the input, as in inferno), fold on
    // this thread; also until a chunk ends at a blank line, so the workers start fresh.
    let mut prev_continues = false;
    let mut finished = false;
    loop {
        if main.event_filter.is_some() {
            chunker.set_target(chunk_bytes);
            if !prev_continues && nthreads > 1 {
                break;
            }
        }
        let Some(c) = chunker.next_chunk()? else {
            break;
        };
        main.feed_bytes(c.bytes(), &mut result);
        prev_continues = c.continues;
        if c.last {
            main.finish(&mut result);
            finished = true;
            break;
        }
    }
    let filter = main.event_filter.clone();
    let mut weird = main.weird_lines;
    drop(main);
    let mut parts = vec![result];

    if !finished {
        thread::scope(|s| -> io::Result<()> {
            let mut txs = Vec::with_capacity(nthreads);
            let mut handles = Vec::with_capacity(nthreads);
            for _ in 0..nthreads {
                let (tx, rx): (SyncSender<Chunk>, Receiver<Chunk>) = sync_channel(QUEUE_DEPTH);
                let filter = filter.clone();
                handles.push(s.spawn(move || {
                    let mut f = Folder::new(opt, filter, false);
                    let mut fold = CompactFold::default();
                    for c in rx {
                        f.feed_bytes(c.bytes(), &mut fold);
                        if c.last {
                            f.finish(&mut fold);
                        }
                    }
                    (fold, f.weird_lines)
                }));
                txs.push(tx);
            }
            let sent = dispatch(&mut chunker, &txs, false);
            drop(txs);
            for h in handles {
                let (fold, w) = join(h)?;
                weird += w;
                parts.push(fold);
            }
            sent
        })?;
    }
    Ok(FoldResult {
        parts,
        bytes: chunker.bytes,
        event_filter: filter,
        weird_lines: weird,
    })
}

/// Runs `make_emit()`-built emitters over the chunks on `nthreads` workers and hands each
/// chunk's output, in input order, to `consume` on the calling thread.
pub fn map_ordered<E, M, C>(
    source: Source,
    opt: &Options,
    nthreads: usize,
    chunk_bytes: usize,
    make_emit: M,
    mut consume: C,
) -> io::Result<(u64, u64)>
where
    E: Emit + Send,
    M: Fn() -> E + Sync,
    C: FnMut(E) -> io::Result<()>,
{
    let mut chunker = Chunker::new(open_input(source)?, chunk_bytes);
    let nthreads = nthreads.max(1);
    let make_emit = &make_emit;
    let mut weird = 0;
    let mut bytes_read = 0;
    thread::scope(|s| -> io::Result<()> {
        let (out_tx, out_rx) = sync_channel::<(u64, E)>(nthreads * QUEUE_DEPTH);
        let mut txs = Vec::with_capacity(nthreads);
        let mut handles = Vec::with_capacity(nthreads);
        for _ in 0..nthreads {
            let (tx, rx): (SyncSender<Chunk>, Receiver<Chunk>) = sync_channel(QUEUE_DEPTH);
            let out_tx = out_tx.clone();
            handles.push(s.spawn(move || {
                let mut f = Folder::new(opt, None, true);
                for c in rx {
                    let mut e = make_emit();
                    f.feed_bytes(c.bytes(), &mut e);
                    if c.last {
                        f.finish(&mut e);
                    }
                    if out_tx.send((c.seq, e)).is_err() {
                        break;
                    }
                }
                f.weird_lines
            }));
            txs.push(tx);
        }
        drop(out_tx);
        let reader = s.spawn(move || {
            let r = dispatch(&mut chunker, &txs, false);
            (r, chunker.bytes)
        });
        // Reorder the chunks' outputs by sequence number.
        let mut next = 0u64;
        let mut waiting: std::collections::BTreeMap<u64, E> = std::collections::BTreeMap::new();
        let mut failed: Option<io::Error> = None;
        for (seq, e) in out_rx {
            waiting.insert(seq, e);
            while let Some(e) = waiting.remove(&next) {
                next += 1;
                if failed.is_none() {
                    if let Err(err) = consume(e) {
                        failed = Some(err);
                    }
                }
            }
        }
        let (r, bytes) = join(reader)?;
        for h in handles {
            weird += join(h)?;
        }
        r?;
        if let Some(err) = failed {
            return Err(err);
        }
        bytes_read = bytes;
        Ok(())
    })?;
    Ok((bytes_read, weird))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold_str(text: &str, nthreads: usize, chunk: usize) -> Vec<(Vec<u8>, u64)> {
        let r = fold(
            Source::Bytes(text.as_bytes().to_vec()),
            &Options::default(),
            None,
            nthreads,
            chunk,
        )
        .unwrap();
        let mut v = Vec::new();
        r.for_each_sorted(|k, c| {
            v.push((k.to_vec(), c));
            Ok(())
        })
        .unwrap();
        v
    }

    #[test]
    fn chunk_sizes_agree() {
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!(
                "comm{} {} [000] 1.{}: {} cycles:\n",
                i % 3,
                i,
                i,
                i + 1
            ));
            for j in 0..(i % 5) {
                text.push_str(&format!("\tffff f{} (/lib/m.so)\n", (i + j) % 7));
            }
            text.push_str(if i % 4 == 0 { "\n \n" } else { "\n" });
            if i % 50 == 0 {
                text.push_str("other 1 1.0: 5 instructions:\n\tffff g (/lib/m.so)\n\n");
            }
        }
        let want = fold_str(&text, 1, 1 << 20);
        for chunk in [1, 7, 64, 333, 4096] {
            for n in [1, 2, 3] {
                assert_eq!(
                    fold_str(&text, n, chunk),
                    want,
                    "chunk {} threads {}",
                    chunk,
                    n
                );
            }
        }
    }

    /// A perf script text of `samples` samples of four comms, sample i with `i % frames_mod`
    /// frames (so some have none) of eleven functions.
    fn fake_script(samples: usize, frames_mod: usize) -> String {
        let mut text = String::new();
        for i in 0..samples {
            text.push_str(&format!("c{} {} [000] 1.{}: 1 cycles:\n", i % 4, i, i));
            for j in 0..(i % frames_mod) {
                text.push_str(&format!("\tffff f{} (/lib/m.so)\n", (i * j) % 11));
            }
            text.push('\n');
        }
        text
    }

    #[test]
    fn mapped_file_agrees() {
        let text = fake_script(300, 9);
        let path =
            std::env::temp_dir().join(format!("iolens-native-map-{}.txt", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let want = fold_str(&text, 1, 1 << 20);
        for chunk in [1, 5, 100, 4096, 1 << 20] {
            for n in [1, 2, 3] {
                let r = fold(
                    Source::Path(path.to_string_lossy().into_owned()),
                    &Options::default(),
                    None,
                    n,
                    chunk,
                )
                .unwrap();
                assert_eq!(r.bytes, text.len() as u64);
                let mut got = Vec::new();
                r.for_each_sorted(|k, c| {
                    got.push((k.to_vec(), c));
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, want, "chunk {} threads {}", chunk, n);
            }
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_range_of_a_file_folds_as_the_file() {
        let text = fake_script(200, 7);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let want = fold_str(&text, 1, 1 << 20);
        for member in [text.as_bytes(), &gz[..]] {
            let mut file = b"header bytes".to_vec();
            file.extend_from_slice(member);
            file.extend_from_slice(b"trailing bytes of the next member");
            let path = std::env::temp_dir().join(format!(
                "iolens-native-range-{}-{}.tar",
                std::process::id(),
                member.len()
            ));
            std::fs::write(&path, &file).unwrap();
            for n in [1, 2] {
                let r = fold(
                    Source::Range(path.to_string_lossy().into_owned(), 12, member.len() as u64),
                    &Options::default(),
                    None,
                    n,
                    100,
                )
                .unwrap();
                let mut got = Vec::new();
                r.for_each_sorted(|k, c| {
                    got.push((k.to_vec(), c));
                    Ok(())
                })
                .unwrap();
                assert_eq!(got, want, "threads {}", n);
            }
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn pooled_buffers_give_the_same_chunks() {
        // chunks kept alive (every buffer new) and chunks dropped at once (buffers from the
        // pool, holding the bytes of earlier chunks beyond their end) cut the text alike
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("c {} [000] 1.{}: 1 cycles:\n", i, i));
            for j in 0..(i % 13) {
                text.push_str(&format!(
                    "\tffff f{}{} (/lib/m.so)\n",
                    j,
                    "x".repeat(i % 37)
                ));
            }
            text.push('\n');
        }
        for target in [1, 50, 700, 4096] {
            let cut = |keep: bool| {
                let src = Input::Reader(Box::new(std::io::Cursor::new(text.clone().into_bytes())));
                let mut chunker = Chunker::new(src, target);
                let (mut kept, mut cuts) = (Vec::new(), Vec::new());
                while let Some(c) = chunker.next_chunk().unwrap() {
                    cuts.push((c.bytes().to_vec(), c.continues, c.last));
                    if keep {
                        kept.push(c);
                    }
                }
                cuts
            };
            let fresh = cut(true);
            assert_eq!(cut(false), fresh, "target {}", target);
            let joined: Vec<u8> = fresh.iter().flat_map(|(b, _, _)| b.clone()).collect();
            assert_eq!(joined, text.as_bytes());
        }
    }

    #[test]
    fn blank_split() {
        assert_eq!(last_blank_line_end(b"a\n\nb\n"), Some(3));
        assert_eq!(last_blank_line_end(b"a\nb\n"), None);
        assert_eq!(last_blank_line_end(b"\nb\n"), Some(1));
        assert_eq!(last_blank_line_end(b"a\n \t\nb"), Some(5));
    }
}
