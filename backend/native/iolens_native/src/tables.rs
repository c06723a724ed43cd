//! Tables mode: every sample of every event, with what folding throws away (timestamp, CPU,
//! pid, tid, comm, event), and its stack folded with inferno's default rules. Written as two
//! headerless CSV files (RFC 4180 quoting, empty unquoted field = NULL) for DuckDB's read_csv:
//!
//!   stacks:  stack_id, folded_stack
//!   samples: ts_ns, cpu, pid, tid, comm, stack_id, weight, event
//!
//! Stack ids count from 0 in order of first appearance in the input.

use std::fs::File;
use std::hash::Hasher;
use std::io::{self, BufWriter, Write};

use crate::arrow::{SampleBatch, Sender};
use crate::fold::{Emit, Meta, Options, Stack};
use crate::fxhash::{FxHashMap, FxHasher};

const NONE: u32 = u32::MAX;

/// Distinct folded stacks with ids 0.., found by a 64-bit hash of the text computed once, on the
/// worker thread that folded it: neither the chunk's table nor the whole input's hashes the text
/// again (not when they grow, not on the thread that writes the CSV). Texts whose hashes collide
/// are chained and told apart by their bytes.
#[derive(Default)]
struct Interned {
    texts: Vec<Box<[u8]>>,
    hashes: Vec<u64>,
    /// hash -> the last id with that hash
    last: FxHashMap<u64, u32>,
    /// id -> the previous id with the same hash (NONE: the first)
    prev: Vec<u32>,
}

impl Interned {
    fn hash(text: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(text);
        h.finish()
    }

    fn find(&self, hash: u64, text: &[u8]) -> Option<u32> {
        let mut i = *self.last.get(&hash)?;
        while i != NONE {
            if &*self.texts[i as usize] == text {
                return Some(i);
            }
            i = self.prev[i as usize];
        }
        None
    }

    fn insert(&mut self, hash: u64, text: Box<[u8]>) -> u32 {
        let id = self.texts.len() as u32;
        let prev = self.last.insert(hash, id).unwrap_or(NONE);
        self.texts.push(text);
        self.hashes.push(hash);
        self.prev.push(prev);
        id
    }

    fn len(&self) -> usize {
        self.texts.len()
    }
}
use crate::stream::{map_ordered, Source};

pub struct Row {
    ts_ns: Option<i64>,
    cpu: Option<i64>,
    pid: Option<i64>,
    tid: Option<i64>,
    comm: u32,
    stack: Option<u32>,
    weight: u64,
    event: Option<u32>,
}

/// One chunk's samples, with chunk-local stack and string ids.
#[derive(Default)]
pub struct ChunkTables {
    stacks: Interned,
    strings: Vec<String>,
    string_index: FxHashMap<String, u32>,
    rows: Vec<Row>,
    key: Vec<u8>,
}

impl ChunkTables {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }

    fn row(&mut self, meta: &Meta, stack: Option<u32>, weight: u64) {
        let comm = self.intern(&meta.comm);
        let event = meta.event.as_deref().map(|e| self.intern(e));
        self.rows.push(Row {
            ts_ns: meta.ts_ns,
            cpu: meta.cpu,
            pid: meta.pid,
            tid: meta.tid,
            comm,
            stack,
            weight,
            event,
        });
    }
}

impl Emit for ChunkTables {
    const META: bool = true;

    fn stack(&mut self, stack: &Stack<'_>, weight: u64, meta: Option<&Meta>) {
        let Some(meta) = meta else { return };
        let mut key = std::mem::take(&mut self.key);
        stack.join_into(&mut key);
        let hash = Interned::hash(&key);
        let id = match self.stacks.find(hash, &key) {
            Some(i) => i,
            None => self.stacks.insert(hash, key[..].into()),
        };
        self.key = key;
        self.row(meta, Some(id), weight);
    }

    fn stackless(&mut self, weight: u64, meta: &Meta) {
        self.row(meta, None, weight);
    }
}

#[derive(Default, Debug)]
pub struct Summary {
    pub bytes: u64,
    pub samples: u64,
    pub stacks: u64,
    pub stackless_samples: u64,
    pub weird_lines: u64,
    /// The first event name of the input: the one inferno-collapse-perf keeps by default.
    pub first_event: Option<String>,
    /// event name ("" for none) -> (samples, summed weight), in order of first appearance.
    pub events: Vec<(String, u64, u64)>,
    pub ts_min_ns: Option<i64>,
    pub ts_max_ns: Option<i64>,
}

fn quoted(w: &mut impl Write, s: &[u8]) -> io::Result<()> {
    w.write_all(b"\"")?;
    let mut rest = s;
    while let Some(i) = memchr::memchr(b'"', rest) {
        w.write_all(&rest[..=i])?;
        w.write_all(b"\"")?;
        rest = &rest[i + 1..];
    }
    w.write_all(rest)?;
    w.write_all(b"\"")
}

/// Writes v in decimal, as `{}` does, without the formatting machinery (a few percent of the
/// pass: every sample has four or five numbers).
fn int(w: &mut impl Write, v: i64) -> io::Result<()> {
    if v < 0 {
        w.write_all(b"-")?;
    }
    uint(w, v.unsigned_abs())
}

fn uint(w: &mut impl Write, v: u64) -> io::Result<()> {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut u = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    w.write_all(&buf[i..])
}

fn opt_int(w: &mut impl Write, v: Option<i64>) -> io::Result<()> {
    if let Some(v) = v {
        int(w, v)?;
    }
    Ok(())
}

/// Where the samples' rows go: CSV text, or Arrow batches (arrow.rs).
trait SampleSink {
    fn row(
        &mut self,
        r: &Row,
        comm: &str,
        stack: Option<u32>,
        event: Option<&str>,
    ) -> io::Result<()>;
    fn finish(self) -> io::Result<()>;
}

struct CsvSamples(BufWriter<File>);

impl SampleSink for CsvSamples {
    fn row(
        &mut self,
        r: &Row,
        comm: &str,
        stack: Option<u32>,
        event: Option<&str>,
    ) -> io::Result<()> {
        let w = &mut self.0;
        opt_int(w, r.ts_ns)?;
        w.write_all(b",")?;
        opt_int(w, r.cpu)?;
        w.write_all(b",")?;
        opt_int(w, r.pid)?;
        w.write_all(b",")?;
        opt_int(w, r.tid)?;
        w.write_all(b",")?;
        quoted(w, comm.as_bytes())?;
        w.write_all(b",")?;
        if let Some(s) = stack {
            uint(w, u64::from(s))?;
        }
        w.write_all(b",")?;
        uint(w, r.weight)?;
        w.write_all(b",")?;
        if let Some(e) = event {
            quoted(w, e.as_bytes())?;
        }
        w.write_all(b"\n")
    }

    fn finish(mut self) -> io::Result<()> {
        self.0.flush()
    }
}

struct ArrowSamples {
    batch: SampleBatch,
    sender: Sender,
}

impl SampleSink for ArrowSamples {
    #[inline]
    fn row(
        &mut self,
        r: &Row,
        comm: &str,
        stack: Option<u32>,
        event: Option<&str>,
    ) -> io::Result<()> {
        self.batch
            .push(r.ts_ns, r.cpu, r.pid, r.tid, comm, stack, r.weight, event);
        if self.batch.full() {
            self.sender.send(std::mem::take(&mut self.batch))?;
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        if !self.batch.is_empty() {
            self.sender.send(std::mem::take(&mut self.batch))?;
        }
        self.sender.complete();
        Ok(())
    }
}

/// Writes the two headerless CSV files (see the module's comment).
pub fn write_tables(
    source: Source,
    stacks_csv: &str,
    samples_csv: &str,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<Summary> {
    let samples = CsvSamples(BufWriter::with_capacity(
        1 << 20,
        File::create(samples_csv)?,
    ));
    tables(source, stacks_csv, samples, nthreads, chunk_bytes)
}

/// Writes the stacks' CSV file and sends the samples as Arrow batches through `sender`; the
/// stream ends (complete) only when every sample was sent.
pub fn write_tables_arrow(
    source: Source,
    stacks_csv: &str,
    sender: Sender,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<Summary> {
    let samples = ArrowSamples {
        batch: SampleBatch::default(),
        sender,
    };
    tables(source, stacks_csv, samples, nthreads, chunk_bytes)
}

fn tables(
    source: Source,
    stacks_csv: &str,
    mut samples: impl SampleSink,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<Summary> {
    let opt = Options::default();
    let mut stacks_out = BufWriter::with_capacity(1 << 20, File::create(stacks_csv)?);
    let mut ids = Interned::default();
    let mut events: FxHashMap<String, usize> = FxHashMap::default();
    let mut summary = Summary::default();
    let mut local_to_global: Vec<u32> = Vec::new();

    let (bytes, weird) = map_ordered(
        source,
        &opt,
        nthreads,
        chunk_bytes,
        ChunkTables::default,
        |chunk| {
            local_to_global.clear();
            let Interned { texts, hashes, .. } = chunk.stacks;
            for (key, hash) in texts.into_iter().zip(hashes) {
                let id = match ids.find(hash, &key) {
                    Some(i) => i,
                    None => {
                        // first appearance: write it out
                        let i = ids.len() as u32;
                        uint(&mut stacks_out, u64::from(i))?;
                        stacks_out.write_all(b",")?;
                        quoted(&mut stacks_out, &key)?;
                        stacks_out.write_all(b"\n")?;
                        ids.insert(hash, key)
                    }
                };
                local_to_global.push(id);
            }
            for r in &chunk.rows {
                let event = r.event.map(|e| chunk.strings[e as usize].as_str());
                let ev_name = event.unwrap_or("");
                let slot = match events.get(ev_name) {
                    Some(&i) => i,
                    None => {
                        events.insert(ev_name.to_string(), summary.events.len());
                        summary.events.push((ev_name.to_string(), 0, 0));
                        summary.events.len() - 1
                    }
                };
                summary.events[slot].1 += 1;
                summary.events[slot].2 += r.weight;
                if summary.first_event.is_none() {
                    if let Some(e) = event {
                        summary.first_event = Some(e.to_string());
                    }
                }
                if let Some(ts) = r.ts_ns {
                    summary.ts_min_ns = Some(summary.ts_min_ns.map_or(ts, |m| m.min(ts)));
                    summary.ts_max_ns = Some(summary.ts_max_ns.map_or(ts, |m| m.max(ts)));
                }
                summary.samples += 1;
                let stack = r.stack.map(|s| local_to_global[s as usize]);
                if stack.is_none() {
                    summary.stackless_samples += 1;
                }
                samples.row(r, &chunk.strings[r.comm as usize], stack, event)?;
            }
            Ok(())
        },
    )?;
    stacks_out.flush()?;
    samples.finish()?;
    summary.bytes = bytes;
    summary.weird_lines = weird;
    summary.stacks = ids.len() as u64;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_display_writes_them() {
        let mut vals: Vec<i64> = vec![
            0,
            1,
            -1,
            9,
            10,
            -10,
            99,
            100,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        let mut x: i64 = 7;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            vals.push(x);
            vals.push(x >> 40);
        }
        for v in vals {
            let mut got = Vec::new();
            opt_int(&mut got, Some(v)).unwrap();
            assert_eq!(got, v.to_string().into_bytes());
            let mut got = Vec::new();
            uint(&mut got, v as u64).unwrap();
            assert_eq!(got, (v as u64).to_string().into_bytes());
        }
        let mut none = Vec::new();
        opt_int(&mut none, None).unwrap();
        assert!(none.is_empty());
    }
}
