//! The difference flame graph of two selections of perf stacks (views/flame.py `diff`): the union
//! of both sides' call trees in pre-order, each node's self weight and samples per side, the
//! noise flags (with repeats), and the function table ranked by the change of share.
//!
//! The answer is the one of the Python reference it replaced (backend/tests/flame_diff_reference.py,
//! which test_flame_diff.py holds this to field by field):
//! - the distinct stacks of both sides in frame-wise order (a frame's name compared as bytes, a
//!   stack before the stacks it is a prefix of: Python's order of `stack.replace(";", "\0")`);
//! - each stack's new nodes are its frames after those it shares with the stack before it; a name
//!   is numbered at its first node in pre-order ('all', the root's name, is 0 wherever it appears);
//! - a node's total is the sum of its subtree's self values;
//! - a function is a frame name of a stack but its first (the command), counted once per stack even
//!   where it recurses, self where the stack ends in it; shares are `100.0 * x / total` (0.0 of an
//!   empty side), changes `b - a`; the `limit` largest changes of self and of total (names break
//!   ties), both kept, ordered by the larger of the two;
//! - noise: the share changed (by 1e-12 or more, as a ratio of sums) and the two sides' per-run
//!   share ranges [min, max] overlap (touching counts), the fio comparison's rule for '~'.
//!
//! Frames are interned to integers once (one hash per frame), so the sort compares integers and
//! one pair of names per comparison, and the tree and the function table never hash a name again.

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::fxhash::FxHashMap;

/// One row of the input: a distinct stack of one run of one side, summed.
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    pub side: u8, // 0: a (before), 1: b (after)
    pub run: u32, // 1-based index into that side's runs with repeats (noise), 0: none
    pub stack: &'a [u8],
    pub weight: i64,
    pub samples: i64,
}

#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Per run of each side (noise only; empty without repeats): its total weight.
    pub runs_a: Vec<i64>,
    pub runs_b: Vec<i64>,
    /// Each side's total weight (the shares' denominators).
    pub total_a: i64,
    pub total_b: i64,
    pub limit: usize,
    /// More nodes than this (the root included): no answer.
    pub max_nodes: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: u32, // index into DiffTree.names
    pub self_a: f64,
    pub self_b: f64,
    pub total_a: f64,
    pub total_b: f64,
    pub delta_self: f64,
    pub delta_total: f64,
    pub samples_a: i64,
    pub samples_b: i64,
    pub noise_self: Option<bool>,
    pub noise_total: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffTree<'a> {
    pub names: Vec<&'a [u8]>,
    pub name: Vec<u32>,
    pub depth: Vec<u32>,
    pub self_a: Vec<i64>,
    pub self_b: Vec<i64>,
    pub samples_a: Vec<i64>,
    pub samples_b: Vec<i64>,
    /// 0 or 1 per node; None without repeats.
    pub noise_self: Option<Vec<u8>>,
    pub noise_total: Option<Vec<u8>>,
    pub functions: Vec<Function>,
    pub functions_count: usize,
}

pub const ROOT_NAME: &[u8] = b"all";
const UNSET: u32 = u32::MAX;

fn pct(x: i64, total: i64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * x as f64 / total as f64
    }
}

/// The noise rule over per-run values `a` and `b` and their runs' totals.
pub fn is_noise(a: &[i64], tot_a: &[i64], b: &[i64], tot_b: &[i64]) -> bool {
    let ratio = |v: &[i64], t: &[i64]| v.iter().sum::<i64>() as f64 / t.iter().sum::<i64>() as f64;
    if (ratio(a, tot_a) - ratio(b, tot_b)).abs() < 1e-12 {
        return false;
    }
    let range = |v: &[i64], t: &[i64]| {
        v.iter()
            .zip(t)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (&x, &t)| {
                let s = 100.0 * x as f64 / t as f64;
                (lo.min(s), hi.max(s))
            })
    };
    let (lo_a, hi_a) = range(a, tot_a);
    let (lo_b, hi_b) = range(b, tot_b);
    lo_a <= hi_b && lo_b <= hi_a
}

/// The stacks' frames as integers: `frames[start..start + len]` per row, names by id (0: 'all'),
/// and each name's rank in byte order.
struct Interned<'a> {
    names: Vec<&'a [u8]>,
    frames: Vec<u32>,
    spans: Vec<(u32, u32)>, // per row: (start, len) in frames
    rank: Vec<u32>,         // per name id: its place among the names sorted as bytes
}

fn fx_hash(b: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::fxhash::FxHasher::default();
    h.write(b);
    h.finish()
}

/// The names met so far, copied together (a lookup compares with the copy, not with the text of
/// the stack that first had the name, which is anywhere in the input), in an open-addressing
/// table of ids tagged with their hash.
struct Names<'a> {
    first: Vec<&'a [u8]>, // per id: the name as it is in the input
    at: Vec<(u32, u32)>,  // per id: (start, len) in text
    text: Vec<u8>,
    slots: Vec<(u32, u32)>, // (id + 1, the hash's upper half); (0, _) empty
    hashes: Vec<u64>,
}

impl<'a> Names<'a> {
    fn new(expect: usize) -> Self {
        let mut n = Names {
            first: Vec::new(),
            at: Vec::new(),
            text: Vec::new(),
            slots: vec![(0, 0); (expect * 2).next_power_of_two().max(64)],
            hashes: Vec::new(),
        };
        n.id(ROOT_NAME);
        n
    }

    fn id(&mut self, name: &'a [u8]) -> u32 {
        let h = fx_hash(name);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (slot, tag) = self.slots[i];
            if slot == 0 {
                break;
            }
            if tag == (h >> 32) as u32 {
                let (s, l) = self.at[slot as usize - 1];
                if &self.text[s as usize..(s + l) as usize] == name {
                    return slot - 1;
                }
            }
            i = (i + 1) & mask;
        }
        let id = self.first.len() as u32;
        self.slots[i] = (id + 1, (h >> 32) as u32);
        self.first.push(name);
        self.at.push((self.text.len() as u32, name.len() as u32));
        self.text.extend_from_slice(name);
        self.hashes.push(h);
        if self.first.len() * 2 > self.slots.len() {
            let mut slots = vec![(0u32, 0u32); self.slots.len() * 2];
            let mask = slots.len() - 1;
            for (k, &h) in self.hashes.iter().enumerate() {
                let mut i = h as usize & mask;
                while slots[i].0 != 0 {
                    i = (i + 1) & mask;
                }
                slots[i] = (k as u32 + 1, (h >> 32) as u32);
            }
            self.slots = slots;
        }
        id
    }

    fn name(&self, id: u32) -> &[u8] {
        let (s, l) = self.at[id as usize];
        &self.text[s as usize..(s + l) as usize]
    }

    /// Per id: its place among the names in byte order (the first 8 bytes compared as one
    /// number, the rest only where those are equal).
    fn ranks(&self) -> Vec<u32> {
        let head = |b: &[u8]| {
            let mut w = [0u8; 8];
            let n = b.len().min(8);
            w[..n].copy_from_slice(&b[..n]);
            u64::from_be_bytes(w)
        };
        let mut ids: Vec<(u64, u32)> = (0..self.first.len() as u32)
            .map(|i| (head(self.name(i)), i))
            .collect();
        ids.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.name(a.1).cmp(self.name(b.1)))
        });
        let mut rank = vec![0u32; ids.len()];
        for (r, &(_, id)) in ids.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        rank
    }
}

/// The length of the common prefix of a and b.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Interns the frames of `rows` into `names`: the frames' ids and each row's (start, len).
fn intern_rows<'a>(rows: &[Row<'a>], names: &mut Names<'a>) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut frames: Vec<u32> = Vec::with_capacity(rows.len() * 8);
    let mut spans: Vec<(u32, u32)> = Vec::with_capacity(rows.len());
    let mut prev: Option<&[u8]> = None;
    for r in rows {
        let start = frames.len();
        let cur = r.stack;
        // the frames this stack shares with the one before are its frames' ids again, not looked
        // up again: those a ';' ends within the common prefix, and the one the prefix ends in if
        // it ends there in both
        let mut from = 0; // where the frames to look up start
        if let Some(prev) = prev {
            let l = common_prefix(prev, cur);
            let mut k = memchr::memchr_iter(b';', &cur[..l]).count();
            from = memchr::memrchr(b';', &cur[..l]).map_or(0, |p| p + 1);
            let ends = |s: &[u8]| l == s.len() || s[l] == b';';
            if ends(prev) && ends(cur) {
                k += 1;
                from = l + 1;
            }
            let (ps, _) = spans[spans.len() - 1];
            frames.extend_from_within(ps as usize..ps as usize + k);
        }
        // "a;;b" has an empty frame, "" one empty frame: as Python's str.split(";")
        if from <= cur.len() {
            for fr in cur[from..].split(|&c| c == b';') {
                frames.push(names.id(fr));
            }
        }
        spans.push((start as u32, (frames.len() - start) as u32));
        prev = Some(cur);
    }
    (frames, spans)
}

/// Rows past this many are interned in two halves on two threads (the second half's names then
/// looked up once each in the first's table).
const PARALLEL_ROWS: usize = 20_000;

fn intern<'a>(rows: &[Row<'a>]) -> Interned<'a> {
    let two = rows.len() >= PARALLEL_ROWS
        && std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
    let (names, frames, spans) = if two {
        let (left, right) = rows.split_at(rows.len() / 2);
        let ((mut names, mut frames, mut spans), (names2, frames2, spans2)) =
            std::thread::scope(|s| {
                let other = s.spawn(|| {
                    let mut n = Names::new(right.len());
                    let (f, sp) = intern_rows(right, &mut n);
                    (n, f, sp)
                });
                let mut n = Names::new(left.len());
                let (f, sp) = intern_rows(left, &mut n);
                (
                    (n, f, sp),
                    other.join().expect("the interning thread does not panic"),
                )
            });
        let map: Vec<u32> = names2.first.iter().map(|&n| names.id(n)).collect();
        let base = frames.len() as u32;
        frames.extend(frames2.iter().map(|&f| map[f as usize]));
        spans.extend(spans2.iter().map(|&(s, n)| (s + base, n)));
        (names, frames, spans)
    } else {
        let mut names = Names::new(rows.len());
        let (frames, spans) = intern_rows(rows, &mut names);
        (names, frames, spans)
    };
    let rank = names.ranks();
    Interned {
        names: names.first,
        frames,
        spans,
        rank,
    }
}

/// Builds the difference; None when the tree has more than `cfg.max_nodes` nodes.
pub fn diff<'a>(rows: &[Row<'a>], cfg: &Config) -> Option<DiffTree<'a>> {
    let it = intern(rows);
    let frames_of = |row: u32| {
        let (s, n) = it.spans[row as usize];
        &it.frames[s as usize..(s + n) as usize]
    };
    // the rows in frame-wise order (a frame's name as bytes; a prefix first), equal stacks
    // adjacent: their frames' ranks compared as sequences
    let ranked: Vec<u32> = it.frames.iter().map(|&f| it.rank[f as usize]).collect();
    let ranks_of = |row: u32| {
        let (s, n) = it.spans[row as usize];
        &ranked[s as usize..(s + n) as usize]
    };
    // the first frames' ranks (+1, 0: none) packed in one number decide most comparisons
    let (width, count) = if it.names.len() < (1 << 21) - 1 {
        (21, 3)
    } else {
        (32, 2)
    };
    let mut keyed: Vec<(u64, u32)> = (0..rows.len() as u32)
        .map(|r| {
            let rk = ranks_of(r);
            let k = (0..count).fold(0u64, |k, j| {
                (k << width) | rk.get(j).map_or(0, |&x| x as u64 + 1)
            });
            (k, r)
        })
        .collect();
    keyed.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            let (x, y) = (ranks_of(a.1), ranks_of(b.1));
            x[count.min(x.len())..].cmp(&y[count.min(y.len())..])
        })
    });
    let order: Vec<u32> = keyed.into_iter().map(|(_, r)| r).collect();

    let nra = cfg.runs_a.len();
    let nruns = nra + cfg.runs_b.len();
    let noisy = nruns > 0;
    let mut t = DiffTree {
        names: vec![ROOT_NAME],
        name: vec![0],
        depth: vec![0],
        self_a: vec![0],
        self_b: vec![0],
        samples_a: vec![0],
        samples_b: vec![0],
        ..Default::default()
    };
    let mut out_id = vec![UNSET; it.names.len()];
    out_id[0] = 0;
    let mut parent: Vec<u32> = vec![0];
    let mut run_self: Vec<i64> = vec![0; nruns]; // per node, per run (a's then b's)
    let mut path: Vec<u32> = Vec::new(); // the current node's frames
    let mut open: Vec<u32> = vec![0]; // node per depth, the root first

    // per function (frame id): totals and selfs; the stack that counted it last
    #[derive(Clone, Copy, Default)]
    struct Fn {
        seen: bool,
        twa: i64,
        swa: i64,
        twb: i64,
        swb: i64,
        tna: i64,
        tnb: i64,
    }
    let mut fns = vec![Fn::default(); it.names.len()];
    let mut mark = vec![UNSET; it.names.len()];
    let mut fn_total: Vec<i64> = vec![0; if noisy { it.names.len() * nruns } else { 0 }];
    let mut fn_self: Vec<i64> = vec![0; fn_total.len()];

    let mut per_run = vec![0i64; nruns];
    let mut i = 0;
    let mut stack_no = 0u32;
    while i < order.len() {
        // one distinct stack: its rows summed
        let frames = frames_of(order[i]);
        let (mut wa, mut wb, mut na, mut nb) = (0i64, 0i64, 0i64, 0i64);
        per_run.iter_mut().for_each(|v| *v = 0);
        let mut j = i;
        while j < order.len() && frames_of(order[j]) == frames {
            let r = &rows[order[j] as usize];
            if r.side == 0 {
                wa += r.weight;
                na += r.samples;
            } else {
                wb += r.weight;
                nb += r.samples;
            }
            if noisy && r.run > 0 {
                let k = if r.side == 0 {
                    r.run as usize - 1
                } else {
                    nra + r.run as usize - 1
                };
                per_run[k] += r.weight;
            }
            j += 1;
        }
        i = j;

        // the tree: the frames after those shared with the stack before
        let shared = path.iter().zip(frames).take_while(|(a, b)| a == b).count();
        path.truncate(shared);
        open.truncate(shared + 1);
        for (d, &fr) in frames.iter().enumerate().skip(shared) {
            let node = t.name.len() as u32;
            if out_id[fr as usize] == UNSET {
                out_id[fr as usize] = t.names.len() as u32;
                t.names.push(it.names[fr as usize]);
            }
            t.name.push(out_id[fr as usize]);
            t.depth.push(d as u32 + 1);
            parent.push(*open.last().expect("the root is open"));
            path.push(fr);
            open.push(node);
        }
        if t.name.len() > cfg.max_nodes {
            return None;
        }
        let n = t.name.len() - t.self_a.len();
        for col in [
            &mut t.self_a,
            &mut t.self_b,
            &mut t.samples_a,
            &mut t.samples_b,
        ] {
            col.resize(col.len() + n, 0);
        }
        run_self.resize(run_self.len() + n * nruns, 0);
        let leaf = *open.last().expect("the root is open") as usize;
        t.self_a[leaf] += wa;
        t.self_b[leaf] += wb;
        t.samples_a[leaf] += na;
        t.samples_b[leaf] += nb;
        for (k, v) in per_run.iter().enumerate() {
            run_self[leaf * nruns + k] += v;
        }

        // the functions: the stack's distinct frames but the command's
        if frames.len() > 1 {
            let last = frames[frames.len() - 1];
            for &fr in &frames[1..] {
                let f = fr as usize;
                if mark[f] == stack_no {
                    continue;
                }
                mark[f] = stack_no;
                let e = &mut fns[f];
                e.seen = true;
                e.twa += wa;
                e.twb += wb;
                e.tna += na;
                e.tnb += nb;
                if fr == last {
                    e.swa += wa;
                    e.swb += wb;
                }
                if noisy {
                    for (k, v) in per_run.iter().enumerate() {
                        fn_total[f * nruns + k] += v;
                        if fr == last {
                            fn_self[f * nruns + k] += v;
                        }
                    }
                }
            }
        }
        stack_no += 1;
    }
    let tots: Vec<i64> = cfg.runs_a.iter().chain(&cfg.runs_b).copied().collect();
    let noise = |v: &[i64]| is_noise(&v[..nra], &tots[..nra], &v[nra..], &tots[nra..]);
    if noisy {
        let nodes = t.name.len();
        let mut ns = vec![0u8; nodes];
        let mut nt = vec![0u8; nodes];
        let mut run_total = run_self.clone();
        for node in (1..nodes).rev() {
            let p = parent[node] as usize;
            for k in 0..nruns {
                run_total[p * nruns + k] += run_total[node * nruns + k];
            }
        }
        for node in 1..nodes {
            let r = node * nruns..(node + 1) * nruns;
            ns[node] = noise(&run_self[r.clone()]) as u8;
            nt[node] = noise(&run_total[r]) as u8;
        }
        t.noise_self = Some(ns);
        t.noise_total = Some(nt);
    }

    // the function table
    struct Row2 {
        id: u32,
        d_s: f64,
        d_t: f64,
    }
    let mut all: Vec<Row2> = Vec::new();
    for (id, e) in fns.iter().enumerate() {
        if e.seen {
            let d_s = pct(e.swb, cfg.total_b) - pct(e.swa, cfg.total_a);
            let d_t = pct(e.twb, cfg.total_b) - pct(e.twa, cfg.total_a);
            all.push(Row2 {
                id: id as u32,
                d_s,
                d_t,
            });
        }
    }
    t.functions_count = all.len();
    let name_of = |r: &Row2| it.names[r.id as usize];
    let mut keep = vec![false; all.len()];
    if cfg.limit > 0 {
        let mut idx: Vec<u32> = (0..all.len() as u32).collect();
        for by_total in [false, true] {
            let key = |r: &Row2| if by_total { r.d_t.abs() } else { r.d_s.abs() };
            let cmp = |x: &u32, y: &u32| {
                let (a, b) = (&all[*x as usize], &all[*y as usize]);
                key(b)
                    .total_cmp(&key(a))
                    .then_with(|| name_of(a).cmp(name_of(b)))
            };
            if cfg.limit < idx.len() {
                idx.select_nth_unstable_by(cfg.limit - 1, cmp);
            }
            for &x in idx.iter().take(cfg.limit) {
                keep[x as usize] = true;
            }
        }
    }
    let mut kept: Vec<&Row2> = all
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(r, _)| r)
        .collect();
    kept.sort_unstable_by(|a, b| {
        let (ka, kb) = (a.d_s.abs().max(a.d_t.abs()), b.d_s.abs().max(b.d_t.abs()));
        kb.total_cmp(&ka).then_with(|| name_of(a).cmp(name_of(b)))
    });
    for r in kept {
        let f = r.id as usize;
        let e = &fns[f];
        let (noise_self, noise_total) = if noisy {
            let s = f * nruns..(f + 1) * nruns;
            (Some(noise(&fn_self[s.clone()])), Some(noise(&fn_total[s])))
        } else {
            (None, None)
        };
        t.functions.push(Function {
            name: out_id[f],
            self_a: pct(e.swa, cfg.total_a),
            self_b: pct(e.swb, cfg.total_b),
            total_a: pct(e.twa, cfg.total_a),
            total_b: pct(e.twb, cfg.total_b),
            delta_self: r.d_s,
            delta_total: r.d_t,
            samples_a: e.tna,
            samples_b: e.tnb,
            noise_self,
            noise_total,
        });
    }
    Some(t)
}

// ------------------------------------------------------------------------------------------------
// Python: `iolens_native.FlameDiffInput` (views/flame.py diff)

/// A C stream of Arrow batches moved to the thread that reads it without the GIL (DuckDB makes
/// them: nothing in them refers to a Python object).
struct Stream(RecordBatchStreamReader);
// SAFETY: the C stream is used by one thread at a time (the one that reads it, then drops it).
unsafe impl Send for Stream {}

fn stream_of(obj: &Bound<'_, PyAny>) -> PyResult<Stream> {
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    // SAFETY: a capsule named "arrow_array_stream" holds an FFI_ArrowArrayStream (the PyCapsule
    // interface's contract); from_raw moves the stream out and leaves a released one behind.
    unsafe {
        let p = pyo3::ffi::PyCapsule_GetPointer(capsule.as_ptr(), c"arrow_array_stream".as_ptr());
        if p.is_null() {
            return Err(PyTypeError::new_err(
                "FlameDiffInput: __arrow_c_stream__ gave no arrow_array_stream capsule",
            ));
        }
        let r = RecordBatchStreamReader::from_raw(p as *mut FFI_ArrowArrayStream).map_err(|e| {
            PyValueError::new_err(format!("FlameDiffInput: the stream's schema: {e}"))
        })?;
        Ok(Stream(r))
    }
}

fn read(s: Stream, what: &str) -> Result<Vec<RecordBatch>, String> {
    s.0.collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("FlameDiffInput: reading the {what}: {e}"))
}

/// A text column's values (None: NULL).
fn texts<'b>(a: &'b dyn Array, what: &str) -> Result<Vec<Option<&'b [u8]>>, String> {
    Ok(match a.data_type() {
        DataType::Utf8 => a
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(str::as_bytes))
            .collect(),
        DataType::LargeUtf8 => a
            .as_string::<i64>()
            .iter()
            .map(|s| s.map(str::as_bytes))
            .collect(),
        DataType::Utf8View => a
            .as_string_view()
            .iter()
            .map(|s| s.map(str::as_bytes))
            .collect(),
        t => return Err(format!("FlameDiffInput: {what} of type {t}, expected text")),
    })
}

fn columns<'b>(
    b: &'b RecordBatch,
    what: &str,
    names: &[&str],
) -> Result<&'b [arrow_array::ArrayRef], String> {
    if b.num_columns() != names.len() {
        return Err(format!(
            "FlameDiffInput: the {what}: {} columns, expected {}",
            b.num_columns(),
            names.join(", ")
        ));
    }
    Ok(b.columns())
}

fn int32<'b>(a: &'b dyn Array, what: &str) -> Result<&'b arrow_array::Int32Array, String> {
    a.as_primitive_opt::<Int32Type>().ok_or_else(|| {
        format!(
            "FlameDiffInput: {what} of type {}, expected INTEGER",
            a.data_type()
        )
    })
}

fn int64<'b>(a: &'b dyn Array, what: &str) -> Result<&'b arrow_array::Int64Array, String> {
    a.as_primitive_opt::<Int64Type>().ok_or_else(|| {
        format!(
            "FlameDiffInput: {what} of type {}, expected BIGINT",
            a.data_type()
        )
    })
}

/// One run of a side: its samples' weight and count per stack id, then its totals.
#[derive(Default)]
struct Run {
    id: String,
    per_stack: Vec<(i64, i64)>, // by stack id: (weight, samples)
    weight: i64,                // of its samples whose stack is in perf_stacks
    samples: i64,
    stackless: i64, // samples without a stack (stack id NULL)
}

/// A distinct stack of one run of one side: where its text is, and its samples' sums.
struct Found {
    side: u8,
    run: u32,   // the run's slot in its side
    batch: u32, // its text: stacks[batch], row idx
    idx: u32,
    weight: i64,
    samples: i64,
}

/// Both sides' selected samples summed per run and stack id, and the text of the stacks they use.
/// `FlameDiffInput(samples_a, stacks_a, samples_b, stacks_b)`: each an object of the Arrow
/// PyCapsule interface (`__arrow_c_stream__`: DuckDB's relation); the samples with columns run_id
/// (VARCHAR), stack_id (INTEGER, NULL: no usable frame), weight (BIGINT); the stacks with run_id,
/// stack_id, folded_stack, at least those the samples use (a stack no sample uses is left out).
/// `runs(side)` gives each run's totals (to decide on noise); `diff(...)` the difference.
#[pyclass(frozen)]
pub struct FlameDiffInput {
    stacks: Vec<RecordBatch>,
    runs: [Vec<Run>; 2],
    found: Vec<Found>,
}

fn load(samples: [Stream; 2], stacks: [Stream; 2]) -> Result<FlameDiffInput, String> {
    let mut runs: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    let mut all_stacks: Vec<RecordBatch> = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    for (side, (samp, st)) in samples.into_iter().zip(stacks).enumerate() {
        let runs = &mut runs[side];
        let mut slot: FxHashMap<Vec<u8>, usize> = FxHashMap::default();
        let mut slot_of = |id: &[u8], runs: &mut Vec<Run>| -> usize {
            if let Some(&s) = slot.get(id) {
                return s;
            }
            runs.push(Run {
                id: String::from_utf8_lossy(id).into_owned(),
                ..Default::default()
            });
            slot.insert(id.to_vec(), runs.len() - 1);
            runs.len() - 1
        };
        for b in read(samp, "samples")? {
            let c = columns(&b, "samples", &["run_id", "stack_id", "weight"])?;
            let (run, stack, weight) = (
                texts(&c[0], "run_id")?,
                int32(&c[1], "stack_id")?,
                int64(&c[2], "weight")?,
            );
            let (mut last, mut last_slot): (&[u8], usize) = (b"", usize::MAX);
            for (i, r) in run.into_iter().enumerate() {
                let r = r.ok_or("FlameDiffInput: a sample with a NULL run_id")?;
                if last_slot == usize::MAX || r != last {
                    last_slot = slot_of(r, runs);
                    last = r;
                }
                let run = &mut runs[last_slot];
                if stack.is_null(i) {
                    run.stackless += 1;
                    continue;
                }
                let id = usize::try_from(stack.value(i))
                    .map_err(|_| format!("FlameDiffInput: stack id {} < 0", stack.value(i)))?;
                if id >= run.per_stack.len() {
                    run.per_stack
                        .resize((id + 1).max(run.per_stack.len() * 2), (0, 0));
                }
                let w = if weight.is_null(i) {
                    0
                } else {
                    weight.value(i)
                };
                let e = &mut run.per_stack[id];
                e.0 += w;
                e.1 += 1;
            }
        }
        for b in read(st, "stacks")? {
            let c = columns(&b, "stacks", &["run_id", "stack_id", "folded_stack"])?;
            let (run, stack) = (texts(&c[0], "run_id")?, int32(&c[1], "stack_id")?);
            let (mut last, mut last_slot): (&[u8], Option<usize>) = (b"", None);
            let mut first = true;
            for (i, r) in run.into_iter().enumerate() {
                let r = r.ok_or("FlameDiffInput: a stack with a NULL run_id")?;
                if first || r != last {
                    last_slot = slot.get(r).copied();
                    last = r;
                    first = false;
                }
                let Some(s) = last_slot else { continue };
                if stack.is_null(i) || c[2].is_null(i) {
                    return Err(
                        "FlameDiffInput: a stack with a NULL stack_id or folded_stack".into(),
                    );
                }
                let Ok(id) = usize::try_from(stack.value(i)) else {
                    continue;
                };
                let run = &mut runs[s];
                let Some(&(w, n)) = run.per_stack.get(id) else {
                    continue;
                };
                if n == 0 {
                    continue;
                }
                run.weight += w;
                run.samples += n;
                found.push(Found {
                    side: side as u8,
                    run: s as u32,
                    batch: all_stacks.len() as u32,
                    idx: i as u32,
                    weight: w,
                    samples: n,
                });
            }
            all_stacks.push(b);
        }
    }
    Ok(FlameDiffInput {
        stacks: all_stacks,
        runs,
        found,
    })
}

fn le_u32<'py>(py: Python<'py>, v: &[u32]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * 4, |buf| {
        for (o, x) in buf.chunks_exact_mut(4).zip(v) {
            o.copy_from_slice(&x.to_le_bytes());
        }
        Ok(())
    })
}

fn le_i64<'py>(py: Python<'py>, v: &[i64]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, v.len() * 8, |buf| {
        for (o, x) in buf.chunks_exact_mut(8).zip(v) {
            o.copy_from_slice(&x.to_le_bytes());
        }
        Ok(())
    })
}

fn text(b: &[u8]) -> PyResult<&str> {
    std::str::from_utf8(b).map_err(|e| {
        PyValueError::new_err(format!("FlameDiffInput: a frame name is not UTF-8: {e}"))
    })
}

type Columns<'py> = (
    Bound<'py, PyList>,          // names
    Bound<'py, PyBytes>,         // name (u32 LE per node)
    Bound<'py, PyBytes>,         // depth (u32)
    Bound<'py, PyBytes>,         // self_a (i64)
    Bound<'py, PyBytes>,         // self_b
    Bound<'py, PyBytes>,         // samples_a
    Bound<'py, PyBytes>,         // samples_b
    Option<Bound<'py, PyBytes>>, // noise_self (u8 0/1), None without repeats
    Option<Bound<'py, PyBytes>>, // noise_total
    Bound<'py, PyList>,          // functions: (name, self_a, self_b, total_a, total_b, delta_self,
    //                              delta_total, samples_a, samples_b, noise_self, noise_total)
    usize, // functions_count
);

#[pymethods]
impl FlameDiffInput {
    #[new]
    fn new(
        py: Python<'_>,
        samples_a: &Bound<'_, PyAny>,
        stacks_a: &Bound<'_, PyAny>,
        samples_b: &Bound<'_, PyAny>,
        stacks_b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let samples = [stream_of(samples_a)?, stream_of(samples_b)?];
        let stacks = [stream_of(stacks_a)?, stream_of(stacks_b)?];
        py.detach(move || load(samples, stacks))
            .map_err(PyValueError::new_err)
    }

    /// The runs of side 0 (a) or 1 (b) with selected samples, in order of first sample: (run id,
    /// weight and samples of those with a stack, samples without one).
    fn runs(&self, side: usize) -> PyResult<Vec<(String, i64, i64, i64)>> {
        let runs = self
            .runs
            .get(side)
            .ok_or_else(|| PyValueError::new_err("side: 0 or 1"))?;
        Ok(runs
            .iter()
            .map(|r| (r.id.clone(), r.weight, r.samples, r.stackless))
            .collect())
    }

    /// The difference: `noise_a` / `noise_b` the runs whose shares measure the noise (both or
    /// neither: none without repeats), `total_a` / `total_b` each side's total weight, the
    /// `limit` largest changes of each kind kept. Returns the tree's columns (little-endian), its
    /// names, the kept functions and their count (`Columns`), or None past max_nodes nodes.
    #[allow(clippy::too_many_arguments)]
    fn diff<'py>(
        &self,
        py: Python<'py>,
        noise_a: Vec<String>,
        noise_b: Vec<String>,
        total_a: i64,
        total_b: i64,
        limit: usize,
        max_nodes: usize,
    ) -> PyResult<Option<Columns<'py>>> {
        if noise_a.is_empty() != noise_b.is_empty() {
            return Err(PyValueError::new_err(
                "diff: noise_a and noise_b: both or neither",
            ));
        }
        // per side, per run slot: its 1-based place among the noise runs (0: none)
        let mut place = [
            vec![0u32; self.runs[0].len()],
            vec![0u32; self.runs[1].len()],
        ];
        let mut totals = [Vec::new(), Vec::new()];
        for (side, ids) in [&noise_a, &noise_b].into_iter().enumerate() {
            for (k, id) in ids.iter().enumerate() {
                let s = self.runs[side]
                    .iter()
                    .position(|r| &r.id == id)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "diff: run {id} has no selected samples on side {side}"
                        ))
                    })?;
                place[side][s] = k as u32 + 1;
                totals[side].push(self.runs[side][s].weight);
            }
        }
        let [runs_a, runs_b] = totals;
        let cfg = Config {
            runs_a,
            runs_b,
            total_a,
            total_b,
            limit,
            max_nodes,
        };
        let texts: Vec<Vec<Option<&[u8]>>> = self
            .stacks
            .iter()
            .map(|b| texts(b.column(2), "folded_stack"))
            .collect::<Result<_, _>>()
            .map_err(PyValueError::new_err)?;
        let rows: Vec<Row> = self
            .found
            .iter()
            .map(|f| Row {
                side: f.side,
                run: place[f.side as usize][f.run as usize],
                stack: texts[f.batch as usize][f.idx as usize].unwrap_or(b""),
                weight: f.weight,
                samples: f.samples,
            })
            .collect();
        let Some(t) = py.detach(|| diff(&rows, &cfg)) else {
            return Ok(None);
        };
        let names = PyList::empty(py);
        for n in &t.names {
            names.append(PyString::new(py, text(n)?))?;
        }
        let functions = PyList::empty(py);
        for f in &t.functions {
            functions.append((
                text(t.names[f.name as usize])?,
                f.self_a,
                f.self_b,
                f.total_a,
                f.total_b,
                f.delta_self,
                f.delta_total,
                f.samples_a,
                f.samples_b,
                f.noise_self,
                f.noise_total,
            ))?;
        }
        let flags = |v: &Option<Vec<u8>>| v.as_ref().map(|v| PyBytes::new(py, v));
        Ok(Some((
            names,
            le_u32(py, &t.name)?,
            le_u32(py, &t.depth)?,
            le_i64(py, &t.self_a)?,
            le_i64(py, &t.self_b)?,
            le_i64(py, &t.samples_a)?,
            le_i64(py, &t.samples_b)?,
            flags(&t.noise_self),
            flags(&t.noise_total),
            functions,
            t.functions_count,
        )))
    }
}

/// The noise rule (`is_noise`) on per-run values and their runs' totals (for the tests, which
/// hold it to the compared-metric tables' rule: testdata/vectors/ratio-tone.json).
#[pyfunction]
pub fn flame_noise(a: Vec<i64>, tot_a: Vec<i64>, b: Vec<i64>, tot_b: Vec<i64>) -> PyResult<bool> {
    if a.len() != tot_a.len() || b.len() != tot_b.len() || a.is_empty() || b.is_empty() {
        return Err(PyValueError::new_err(
            "flame_noise: one total per value, and values on both sides",
        ));
    }
    Ok(is_noise(&a, &tot_a, &b, &tot_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(side: u8, run: u32, stack: &str, weight: i64) -> Row<'_> {
        Row {
            side,
            run,
            stack: stack.as_bytes(),
            weight,
            samples: 1,
        }
    }

    fn cfg(total_a: i64, total_b: i64) -> Config {
        Config {
            total_a,
            total_b,
            limit: 100,
            max_nodes: 1000,
            ..Default::default()
        }
    }

    /// (name, depth, self_a, self_b) per node, the names spelled out.
    fn nodes(t: &DiffTree) -> Vec<(String, u32, i64, i64)> {
        (0..t.name.len())
            .map(|i| {
                let n = String::from_utf8(t.names[t.name[i] as usize].to_vec()).unwrap();
                (n, t.depth[i], t.self_a[i], t.self_b[i])
            })
            .collect()
    }

    fn n(name: &str, depth: u32, a: i64, b: i64) -> (String, u32, i64, i64) {
        (name.to_string(), depth, a, b)
    }

    #[test]
    fn the_union_in_pre_order_children_by_name_prefix_first() {
        // ';' sorts lowest: "a;b" (b under a) before "a b" and "a.b" (frames after "a")
        let rows = [
            row(1, 0, "a.b", 1),
            row(0, 0, "a;b;c", 2),
            row(1, 0, "a;b", 3),
            row(0, 0, "a b", 4),
            row(1, 0, "a;b;c", 5), // the same stack on both sides: one node
            row(0, 0, "a;b;c", 6), // and twice on one side (two runs): summed
        ];
        let t = diff(&rows, &cfg(12, 9)).unwrap();
        assert_eq!(
            nodes(&t),
            vec![
                n("all", 0, 0, 0),
                n("a", 1, 0, 0),
                n("b", 2, 0, 3),
                n("c", 3, 8, 5),
                n("a b", 1, 4, 0),
                n("a.b", 1, 0, 1)
            ]
        );
        assert_eq!(t.names, vec![&b"all"[..], b"a", b"b", b"c", b"a b", b"a.b"]);
        assert_eq!(t.samples_a, vec![0, 0, 0, 2, 1, 0]);
        assert_eq!(t.noise_self, None);
    }

    #[test]
    fn a_frame_named_all_is_name_zero_and_recursion_counts_once() {
        let rows = [
            row(0, 0, "x;all;f;f;f", 10),
            row(1, 0, "all", 5),
            row(1, 0, "x;f", 5),
        ];
        let t = diff(&rows, &cfg(10, 10)).unwrap();
        assert_eq!(t.name, vec![0, 0, 1, 0, 2, 2, 2, 2]);
        assert_eq!(t.names, vec![&b"all"[..], b"x", b"f"]);
        // functions: 'all' (once, inside x's stack: the command 'all' of "all" is not one), f (recursive)
        assert_eq!(t.functions_count, 2);
        let f = t
            .functions
            .iter()
            .find(|f| t.names[f.name as usize] == b"f")
            .unwrap();
        assert_eq!(
            (f.total_a, f.total_b, f.self_a, f.self_b),
            (100.0, 50.0, 100.0, 50.0)
        );
        assert_eq!((f.samples_a, f.samples_b), (1, 1));
        let all = t.functions.iter().find(|f| f.name == 0).unwrap();
        assert_eq!((all.total_a, all.total_b, all.self_a), (100.0, 0.0, 0.0));
    }

    #[test]
    fn one_side_empty_and_nothing_at_all() {
        let rows = [row(1, 0, "cmd;g", 4)];
        let t = diff(&rows, &cfg(0, 4)).unwrap();
        assert_eq!(
            nodes(&t),
            vec![n("all", 0, 0, 0), n("cmd", 1, 0, 0), n("g", 2, 0, 4)]
        );
        let g = &t.functions[0];
        assert_eq!(
            (g.self_a, g.self_b, g.delta_self, g.delta_total),
            (0.0, 100.0, 100.0, 100.0)
        );
        let t = diff(&[], &cfg(0, 0)).unwrap();
        assert_eq!((t.name, t.functions_count), (vec![0], 0));
    }

    #[test]
    fn functions_ranked_by_change_names_break_ties_limit_of_each_kind() {
        // c and b change by the same amount (the name decides), d's total changes most
        let rows = [
            row(0, 0, "k;b", 10),
            row(0, 0, "k;c", 10),
            row(0, 0, "k;d;e", 30),
            row(0, 0, "k;z", 50),
            row(1, 0, "k;b", 20),
            row(1, 0, "k;c", 20),
            row(1, 0, "k;d;e", 10),
            row(1, 0, "k;z", 50),
        ];
        let names = |t: &DiffTree| -> Vec<String> {
            t.functions
                .iter()
                .map(|f| String::from_utf8(t.names[f.name as usize].to_vec()).unwrap())
                .collect()
        };
        let t = diff(&rows, &cfg(100, 100)).unwrap();
        assert_eq!(names(&t), vec!["d", "e", "b", "c", "z"]);
        assert_eq!(t.functions_count, 5);
        let mut c = cfg(100, 100);
        c.limit = 1;
        // by self: e (-20 pp; b, c +10), by total: d (-20 pp, e too: d first by name)
        assert_eq!(names(&diff(&rows, &c).unwrap()), vec!["d", "e"]);
        c.limit = 0;
        let t = diff(&rows, &c).unwrap();
        assert_eq!((t.functions.len(), t.functions_count), (0, 5));
    }

    #[test]
    fn names_interned_through_growth_ranked_as_bytes() {
        // names sharing long prefixes (the first 8 bytes tie), a prefix of another, non-ASCII, empty
        let owned: Vec<String> = (0..5000)
            .map(|i| format!("print_simple_command_c{}", (i * 7919) % 5000))
            .chain(["print_si", "print_s", "", "é", "all", "z"].map(String::from))
            .collect();
        let mut names = Names::new(4);
        let ids: Vec<u32> = owned.iter().map(|s| names.id(s.as_bytes())).collect();
        assert_eq!(names.id(b"all"), 0);
        for (s, &id) in owned.iter().zip(&ids) {
            assert_eq!(names.id(s.as_bytes()), id);
            assert_eq!(names.name(id), s.as_bytes());
        }
        let rank = names.ranks();
        let mut sorted: Vec<&[u8]> = (0..rank.len() as u32).map(|i| names.name(i)).collect();
        sorted.sort();
        for i in 0..rank.len() as u32 {
            assert_eq!(sorted[rank[i as usize] as usize], names.name(i));
        }
    }

    #[test]
    fn frames_shared_with_the_stack_before_are_the_same_frames() {
        // the ids reused from the row before are those of the frames a plain split gives
        let stacks = [
            "a;b;c", "a;b", "a;bc", "a;b;c", "a;", "a;;b", "", "a", "a;b;", "a;b;", "x", "a;b;c;d",
            "a;b;c", "ab;c", "a", "a;b", "é;ß", "é;ß;x",
        ];
        let rows: Vec<Row> = stacks.iter().map(|s| row(0, 0, s, 1)).collect();
        let it = intern(&rows);
        for (k, s) in stacks.iter().enumerate() {
            let (start, n) = it.spans[k];
            let got: Vec<&[u8]> = it.frames[start as usize..(start + n) as usize]
                .iter()
                .map(|&f| it.names[f as usize])
                .collect();
            let want: Vec<&[u8]> = s.as_bytes().split(|&c| c == b';').collect();
            assert_eq!(got, want, "{s}");
        }
        assert_eq!(common_prefix(b"abcdefghijk", b"abcdefghijz"), 10);
        assert_eq!(common_prefix(b"abcdefgh", b"abcdefgh"), 8);
        assert_eq!(common_prefix(b"", b"a"), 0);
    }

    #[test]
    fn two_halves_interned_apart_make_the_same_tree() {
        // past PARALLEL_ROWS rows the frames are interned on two threads: the answer is the one of
        // a single pass (here: against the same rows cut below the threshold and merged by hand)
        let owned: Vec<String> = (0..PARALLEL_ROWS + 500)
            .map(|i| format!("c{};f{};g{};h{}", i % 3, i % 101, (i * 7) % 997, i % 13))
            .collect();
        let rows: Vec<Row> = owned
            .iter()
            .enumerate()
            .map(|(i, s)| row((i % 2) as u8, 0, s, i as i64 % 17))
            .collect();
        let it = intern(&rows);
        let mut names = Names::new(4);
        let (frames, spans) = intern_rows(&rows, &mut names);
        for (k, (&sa, &sb)) in it.spans.iter().zip(&spans).enumerate() {
            let name_of = |f: &[u32], sp: (u32, u32), ns: &dyn Fn(u32) -> Vec<u8>| {
                f[sp.0 as usize..(sp.0 + sp.1) as usize]
                    .iter()
                    .map(|&x| ns(x))
                    .collect::<Vec<_>>()
            };
            let a = name_of(&it.frames, sa, &|x| it.names[x as usize].to_vec());
            let b = name_of(&frames, sb, &|x| names.name(x).to_vec());
            assert_eq!(a, b, "row {k}");
        }
        let mut c = cfg(1, 1);
        c.max_nodes = 1 << 20;
        let t = diff(&rows, &c).unwrap();
        assert_eq!(
            t.name.len(),
            1 + 3
                + 3 * 101
                + (0..PARALLEL_ROWS + 500)
                    .map(|i| (i % 3, i % 101, (i * 7) % 997))
                    .collect::<std::collections::HashSet<_>>()
                    .len()
                + rows.len()
        );
    }

    #[test]
    fn too_many_nodes_is_no_answer() {
        let rows = [row(0, 0, "a;b;c", 1)];
        let mut c = cfg(1, 0);
        c.max_nodes = 4;
        assert!(diff(&rows, &c).is_some());
        c.max_nodes = 3;
        assert!(diff(&rows, &c).is_none());
    }

    #[test]
    fn noise_per_node_with_repeats() {
        // three runs a side of 100 each: x's share 10/11/12 % against 11/12/13 % (the ranges
        // overlap: noise), y only in a (88-90 % against 0: a change), z only in b, c 100 % on
        // both sides (unchanged: not noise), the root never
        let mut rows = Vec::new();
        let (xa, xb) = ([10, 11, 12], [11, 12, 13]);
        for k in 0..3 {
            let r = k as u32 + 1;
            rows.extend([row(0, r, "c;x", xa[k]), row(0, r, "c;y", 100 - xa[k])]);
            rows.extend([row(1, r, "c;x", xb[k]), row(1, r, "c;z", 100 - xb[k])]);
        }
        let c = Config {
            runs_a: vec![100; 3],
            runs_b: vec![100; 3],
            total_a: 300,
            total_b: 300,
            limit: 10,
            max_nodes: 100,
        };
        let t = diff(&rows, &c).unwrap();
        assert_eq!(
            nodes(&t).iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
            vec!["all", "c", "x", "y", "z"]
        );
        assert_eq!(t.noise_self, Some(vec![0, 0, 1, 0, 0]));
        assert_eq!(t.noise_total, Some(vec![0, 0, 1, 0, 0]));
        let f: Vec<_> = t
            .functions
            .iter()
            .map(|f| (t.names[f.name as usize], f.noise_self, f.noise_total))
            .collect();
        assert_eq!(
            f,
            vec![
                (&b"y"[..], Some(false), Some(false)),
                (b"z", Some(false), Some(false)),
                (b"x", Some(true), Some(true))
            ]
        );
        assert!(is_noise(&[10, 11, 12], &[100; 3], &[11, 12, 13], &[100; 3]));
        assert!(is_noise(&[10, 12], &[100; 2], &[12, 14], &[100; 2])); // touching counts
        assert!(!is_noise(&[10, 11], &[100; 2], &[12, 13], &[100; 2]));
        assert!(!is_noise(&[10, 12], &[100; 2], &[12, 10], &[100; 2])); // same share: unchanged
    }
}
