//! Tables mode: every sample of every event, with what folding throws away (timestamp, CPU,
//! pid, tid, comm, event), and its stack folded with inferno's default rules. Two tables, sent
//! to DuckDB as Arrow batches while the text is parsed (arrow.rs):
//!
//!   stacks:  stack_id, folded_stack   (each distinct stack once, as it first appears)
//!   samples: ts_ns, cpu, pid, tid, comm, stack_id, weight, event
//!
//! Stack ids count from 0 in order of first appearance in the input. The samples go while the
//! text is parsed, the stacks after the last sample (arrow.rs: each a run, one INSERT).

use std::hash::Hasher;
use std::io;

use crate::arrow::{SampleBatch, Sender, Texts};
use crate::fold::{Emit, Meta, Options, Stack};
use crate::fxhash::{FxHashMap, FxHasher};

const NONE: u32 = u32::MAX;

/// Distinct folded stacks with ids 0.., found by a 64-bit hash of the text computed once, on the
/// worker thread that folded it: neither the chunk's table nor the whole input's hashes the text
/// again (not when they grow, not on the thread that writes the CSV). Texts whose hashes collide
/// are chained and told apart by their bytes.
#[derive(Default)]
struct Interned {
    texts: Texts,
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
            if self.texts.get(i as usize) == text {
                return Some(i);
            }
            i = self.prev[i as usize];
        }
        None
    }

    fn insert(&mut self, hash: u64, text: &[u8]) -> u32 {
        let id = self.hashes.len() as u32;
        let prev = self.last.insert(hash, id).unwrap_or(NONE);
        self.texts.push(text);
        self.hashes.push(hash);
        self.prev.push(prev);
        id
    }

    fn len(&self) -> usize {
        self.hashes.len()
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
    /// The id of the last comm and of the last event interned: consecutive samples mostly share
    /// both (one lookup of the map per change instead of two per sample).
    last_comm: Option<u32>,
    last_event: Option<u32>,
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

    /// `intern`, first compared with the string of `last` (then interned as `last`).
    fn intern_after(&mut self, s: &str, last: Option<u32>) -> u32 {
        match last {
            Some(i) if self.strings[i as usize] == s => i,
            _ => self.intern(s),
        }
    }

    fn row(&mut self, meta: &Meta, stack: Option<u32>, weight: u64) {
        let comm = self.intern_after(&meta.comm, self.last_comm);
        self.last_comm = Some(comm);
        let event = meta
            .event
            .as_deref()
            .map(|e| self.intern_after(e, self.last_event));
        if event.is_some() {
            self.last_event = event;
        }
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
            None => self.stacks.insert(hash, &key),
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

/// Sends the samples and the distinct stacks through `sender` as Arrow batches; the stream ends
/// (complete) only when every row was sent.
pub fn write_tables_arrow(
    source: Source,
    sender: Sender,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<Summary> {
    tables(source, sender, nthreads, chunk_bytes)
}

fn tables(
    source: Source,
    sender: Sender,
    nthreads: usize,
    chunk_bytes: usize,
) -> io::Result<Summary> {
    let opt = Options::default();
    let mut samples = SampleBatch::default();
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
            let local = &chunk.stacks;
            for (i, &hash) in local.hashes.iter().enumerate() {
                let key = local.texts.get(i);
                let id = match ids.find(hash, key) {
                    Some(i) => i,
                    None => ids.insert(hash, key), // first appearance
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
                samples.push(
                    r.ts_ns,
                    r.cpu,
                    r.pid,
                    r.tid,
                    &chunk.strings[r.comm as usize],
                    stack,
                    r.weight,
                    event,
                );
                if samples.full() {
                    sender.samples(std::mem::take(&mut samples))?;
                }
            }
            Ok(())
        },
    )?;
    if !samples.is_empty() {
        sender.samples(samples)?;
    }
    // The stacks after every sample, in one run. Runs of stacks between the samples leave their
    // rows to the commit unless each is a row group or more (runs of a few thousand stacks: ~0.7 s
    // of CPU at the commit of a 450k-node text, serial, instead of ~0.05 s); a run of the first
    // 122,880 stacks sent while the text was parsed left the rest (less than a row group) to the
    // commit, and the part after the last sample was no shorter (bench/README.md).
    summary.stacks = ids.len() as u64;
    sender.stack_texts(ids.texts)?;
    sender.complete();
    summary.bytes = bytes;
    summary.weird_lines = weird;
    Ok(summary)
}
