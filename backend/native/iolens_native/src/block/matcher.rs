//! Events -> one CSV row per I/O: issue matched to completion by `IoMatcher`'s rules, the rows
//! in its order, its counters, lat_bin, and the CSV written as `csv.writer` writes it.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{self, Write};

use super::parser::{io_stop, stop, Action, Ev, Stop, ACTION_NAMES};
use super::text::{ovf, R};
use crate::fxhash::FxHashMap;

const LAT_BINS_PER_OCTAVE: f64 = 8.0;

/// Strings kept by id, with their CSV field ready (quoted when they hold a comma or a quote).
#[derive(Default)]
struct Interner {
    index: FxHashMap<Box<str>, u32>,
    strs: Vec<Box<str>>,
    csv: Vec<Box<[u8]>>,
    last: u32,
}

fn csv_field(s: &str) -> Box<[u8]> {
    // csv.writer, QUOTE_MINIMAL: quoted when it holds the delimiter, the quote or a character of
    // the line terminator ("\n"; no field can hold "\n" or "\r": they end lines)
    if s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        let mut v = Vec::with_capacity(s.len() + 2);
        v.push(b'"');
        for &b in s.as_bytes() {
            if b == b'"' {
                v.push(b'"');
            }
            v.push(b);
        }
        v.push(b'"');
        v.into_boxed_slice()
    } else {
        s.as_bytes().into()
    }
}

impl Interner {
    #[inline]
    fn id(&mut self, s: &str) -> u32 {
        if let Some(x) = self.strs.get(self.last as usize) {
            if &**x == s {
                return self.last;
            }
        }
        let id = match self.index.get(s) {
            Some(&i) => i,
            None => {
                let i = self.strs.len() as u32;
                self.strs.push(s.into());
                self.csv.push(csv_field(s));
                self.index.insert(s.into(), i);
                i
            }
        };
        self.last = id;
        id
    }
}

/// (device id, sector): the key of a request, as IoMatcher's (dev, sector).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u32, Option<i64>);

/// Fx with a final mix: sectors are multiples of 8, whose low bits the multiply keeps equal.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

type KeyMap<V> = HashMap<Key, V, BuildHasherDefault<KeyHasher>>;

/// A Python list used as a queue (most hold one item).
enum Fifo<T> {
    One(T),
    Many(VecDeque<T>),
}

impl<T> Fifo<T> {
    fn push(&mut self, x: T) {
        match self {
            Fifo::Many(d) => d.push_back(x),
            Fifo::One(_) => {
                let Fifo::One(a) = std::mem::replace(self, Fifo::Many(VecDeque::with_capacity(4)))
                else {
                    unreachable!()
                };
                if let Fifo::Many(d) = self {
                    d.push_back(a);
                    d.push_back(x);
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Fifo::One(_) => 1,
            Fifo::Many(d) => d.len(),
        }
    }

    fn into_vec(self) -> Vec<T> {
        match self {
            Fifo::One(x) => vec![x],
            Fifo::Many(d) => d.into(),
        }
    }
}

/// `lst = m.get(key); x = lst.pop(0); if not lst: del m[key]`
fn pop_front<V, T>(
    m: &mut KeyMap<V>,
    key: Key,
    fifo: impl Fn(&mut V) -> &mut Fifo<T>,
    take: impl FnOnce(V) -> Fifo<T>,
) -> Option<T> {
    match m.entry(key) {
        MapEntry::Vacant(_) => None,
        MapEntry::Occupied(mut o) => {
            if fifo(o.get_mut()).len() <= 1 {
                match take(o.remove()) {
                    Fifo::One(x) => Some(x),
                    Fifo::Many(mut d) => d.pop_front(),
                }
            } else {
                match fifo(o.get_mut()) {
                    Fifo::Many(d) => d.pop_front(),
                    Fifo::One(_) => unreachable!(),
                }
            }
        }
    }
}

/// A dict keeping Python's order: insertion order of the keys present, a key deleted and added
/// again goes last, an assignment to a present key keeps its place.
struct OrderedQueues<T> {
    map: KeyMap<(u64, Fifo<T>)>,
    seq: u64,
}

impl<T> OrderedQueues<T> {
    pub(super) fn new() -> Self {
        OrderedQueues {
            map: KeyMap::default(),
            seq: 0,
        }
    }

    fn pop_front(&mut self, key: Key) -> Option<T> {
        pop_front(&mut self.map, key, |v| &mut v.1, |v| v.1)
    }

    /// m.setdefault(key, []).append(x)
    fn push(&mut self, key: Key, x: T) {
        match self.map.entry(key) {
            MapEntry::Occupied(mut o) => o.get_mut().1.push(x),
            MapEntry::Vacant(v) => {
                self.seq += 1;
                v.insert((self.seq, Fifo::One(x)));
            }
        }
    }

    /// The values in dict order, emptying the map.
    fn drain(&mut self) -> Vec<T> {
        let mut all: Vec<(u64, Fifo<T>)> = self.map.drain().map(|(_, v)| v).collect();
        all.sort_unstable_by_key(|v| v.0);
        all.into_iter().flat_map(|(_, f)| f.into_vec()).collect()
    }
}

/// An I/O in flight: IoMatcher's list [dev, sector, bytes, rwbs, -, insert, issue, cpu, pid,
/// comm, sectors left, requeues].
struct Io {
    dev: u32,
    sector: Option<i64>,
    bytes: i64,
    rwbs: u32,
    insert: Option<i64>,
    issue: i64,
    cpu: i64,
    pid: i64,
    comm: u32,
    left: i64,
    requeues: i64,
}

#[derive(Clone, Copy)]
#[repr(usize)]
enum C {
    CompleteWithoutIssue,
    PartialComplete,
    NegativeLatency,
    Matched,
    IssueWithoutSector,
    IssueDuplicate,
    InsertDuplicate,
    RequeueWithoutIssue,
    IssueWithoutComplete,
    InsertWithoutIssue,
}

const COUNT_NAMES: [&str; 10] = [
    "complete_without_issue",
    "partial_complete",
    "negative_latency",
    "matched",
    "issue_without_sector",
    "issue_duplicate",
    "insert_duplicate",
    "requeue_without_issue",
    "issue_without_complete",
    "insert_without_issue",
];

/// Fixed keys counted in order of first increment.
struct Tally<const N: usize> {
    n: [u64; N],
    order: Vec<usize>,
}

impl<const N: usize> Tally<N> {
    pub(super) fn new() -> Self {
        Tally {
            n: [0; N],
            order: Vec::new(),
        }
    }

    #[inline]
    fn add(&mut self, k: usize, by: u64) {
        if self.n[k] == 0 {
            self.order.push(k);
        }
        self.n[k] += by;
    }

    fn items(&self, names: &[&str]) -> Vec<(String, u64)> {
        self.order
            .iter()
            .map(|&k| (names[k].to_string(), self.n[k]))
            .collect()
    }
}

/// floor(8 x log2(latency)), 0 for latencies <= 1 ns: `lat_bin` of ingest_block.py (the same
/// double, the same libm log2).
#[inline]
pub fn lat_bin(lat: i64) -> i64 {
    if lat > 1 {
        ((lat as f64).log2() * LAT_BINS_PER_OCTAVE) as i64
    } else {
        0
    }
}

/// The matcher's results besides the rows.
pub struct MatchCounts {
    pub t0_ns: Option<i64>,
    pub first_ns: Option<i64>,
    pub last_ns: Option<i64>,
    pub counts: Vec<(String, u64)>,
    pub actions: Vec<(String, u64)>,
    pub devices: Vec<(String, u64)>,
    pub unmatched_completes: Vec<i64>,
    pub unfinished_issues: Vec<i64>,
    pub rows: u64,
}

pub(super) struct Matcher<W: Write> {
    t0: Option<i64>,
    first: Option<i64>,
    last: Option<i64>,
    counts: Tally<10>,
    actions: Tally<13>,
    dev_counts: Vec<u64>,
    dev_order: Vec<u32>,
    devs: Interner,
    rwbs: Interner,
    ops: Vec<&'static [u8]>, // op of each rwbs id
    comms: Interner,
    inserted: KeyMap<Fifo<i64>>,
    inflight: OrderedQueues<Io>,
    requeued: OrderedQueues<Io>,
    unmatched_completes: Vec<i64>,
    unfinished_issues: Vec<i64>,
    out: Vec<u8>,
    sink: W,
    rows: u64,
}

/// op_of of block_events.py
fn op_of(rwbs: &str) -> &'static str {
    let mut cs = rwbs.chars();
    let c0 = cs.next();
    let c1 = cs.next();
    let first = match (c0, c1) {
        (Some('F'), Some(c @ ('R' | 'W' | 'D' | 'N'))) => Some(c),
        _ => c0,
    };
    match first {
        Some('R') => "read",
        Some('W') => "write",
        Some('D') => "discard",
        Some('F') => "flush",
        Some('N') => "none",
        _ => "other",
    }
}

static DIGITS2: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// str(int) of an i64, written in place.
#[inline]
fn put_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    let mut n = v.unsigned_abs();
    let nd = n.checked_ilog10().unwrap_or(0) as usize + 1;
    out.reserve(nd);
    let len = out.len();
    let dst = &mut out.spare_capacity_mut()[..nd];
    let mut i = nd;
    while n >= 100 {
        let d = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        dst[i].write(DIGITS2[d]);
        dst[i + 1].write(DIGITS2[d + 1]);
    }
    if n >= 10 {
        let d = n as usize * 2;
        dst[i - 2].write(DIGITS2[d]);
        dst[i - 1].write(DIGITS2[d + 1]);
    } else {
        dst[i - 1].write(b'0' + n as u8);
    }
    // SAFETY: the nd bytes after len were written just above (every index from 0 to nd - 1)
    unsafe { out.set_len(len + nd) };
}

#[inline]
fn put_opt(out: &mut Vec<u8>, v: Option<i64>) {
    if let Some(v) = v {
        put_int(out, v);
    }
    out.push(b',');
}

fn sub(a: i64, b: i64) -> R<i64> {
    ovf(a.checked_sub(b))
}

impl<W: Write> Matcher<W> {
    pub(super) fn new(t0: Option<i64>, sink: W) -> Self {
        Matcher {
            t0,
            first: None,
            last: None,
            counts: Tally::new(),
            actions: Tally::new(),
            dev_counts: Vec::new(),
            dev_order: Vec::new(),
            devs: Interner::default(),
            rwbs: Interner::default(),
            ops: Vec::new(),
            comms: Interner::default(),
            inserted: KeyMap::default(),
            inflight: OrderedQueues::new(),
            requeued: OrderedQueues::new(),
            unmatched_completes: Vec::new(),
            unfinished_issues: Vec::new(),
            out: Vec::with_capacity(1 << 20),
            sink,
            rows: 0,
        }
    }

    #[inline]
    fn count(&mut self, c: C) {
        self.counts.add(c as usize, 1);
    }

    #[inline]
    fn device(&mut self, dev: u32) {
        let d = dev as usize;
        if d >= self.dev_counts.len() {
            self.dev_counts.resize(d + 1, 0);
        }
        if self.dev_counts[d] == 0 {
            self.dev_order.push(dev);
        }
        self.dev_counts[d] += 1;
    }

    #[inline]
    fn rwbs_id(&mut self, s: &str) -> u32 {
        let id = self.rwbs.id(s);
        if id as usize == self.ops.len() {
            self.ops.push(op_of(s).as_bytes());
        }
        id
    }

    /// One CSV row (ROW_COLUMNS of ingest_block.py).
    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        dev: u32,
        sector: Option<i64>,
        bytes: Option<i64>,
        rwbs: u32,
        insert: Option<i64>,
        issue: Option<i64>,
        complete: Option<i64>,
        lat: Option<i64>,
        bin: Option<i64>,
        cpu: Option<i64>,
        pid: Option<i64>,
        comm: Option<u32>,
        error: Option<i64>,
        requeues: i64,
    ) -> io::Result<()> {
        let o = &mut self.out;
        o.extend_from_slice(&self.devs.csv[dev as usize]);
        o.push(b',');
        put_opt(o, sector);
        put_opt(o, bytes);
        o.extend_from_slice(self.ops[rwbs as usize]);
        o.push(b',');
        o.extend_from_slice(&self.rwbs.csv[rwbs as usize]);
        o.push(b',');
        put_opt(o, insert);
        put_opt(o, issue);
        put_opt(o, complete);
        put_opt(o, lat);
        put_opt(o, bin);
        put_opt(o, cpu);
        put_opt(o, pid);
        if let Some(c) = comm {
            o.extend_from_slice(&self.comms.csv[c as usize]);
        }
        o.push(b',');
        put_opt(o, error);
        put_int(o, requeues);
        o.push(b'\n');
        self.rows += 1;
        if self.out.len() >= 1 << 20 {
            self.sink.write_all(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    fn unfinished(&mut self, e: Io, t0: i64) -> Result<(), Stop> {
        self.count(C::IssueWithoutComplete);
        self.unfinished_issues.push(e.issue);
        self.device(e.dev);
        let ins = match e.insert {
            Some(x) => Some(sub(x, t0).map_err(stop)?),
            None => None,
        };
        let issue = sub(e.issue, t0).map_err(stop)?;
        self.row(
            e.dev,
            e.sector,
            Some(e.bytes),
            e.rwbs,
            ins,
            Some(issue),
            None,
            None,
            None,
            Some(e.cpu),
            Some(e.pid),
            Some(e.comm),
            None,
            e.requeues,
        )
        .map_err(io_stop)
    }

    /// IoMatcher.feed, one event.
    pub(super) fn feed(&mut self, ev: &Ev) -> Result<(), Stop> {
        let t = ev.t;
        let t0 = *self.t0.get_or_insert(t);
        if self.first.is_none() {
            self.first = Some(t);
        }
        self.last = Some(t);
        self.actions.add(ev.action as usize, 1);
        match ev.action {
            Action::Complete => {
                let dev = self.devs.id(ev.dev);
                let key = Key(dev, ev.sector);
                match self.inflight.pop_front(key) {
                    None => {
                        self.count(C::CompleteWithoutIssue);
                        self.unmatched_completes.push(t);
                        self.device(dev);
                        let rwbs = self.rwbs_id(ev.rwbs);
                        let c = sub(t, t0).map_err(stop)?;
                        self.row(
                            dev,
                            ev.sector,
                            ev.bytes,
                            rwbs,
                            None,
                            None,
                            Some(c),
                            None,
                            None,
                            None,
                            None,
                            None,
                            ev.error,
                            0,
                        )
                        .map_err(io_stop)?;
                    }
                    Some(mut e) => {
                        let nr = ev.nr.unwrap_or(0);
                        if 0 < nr && nr < e.left {
                            // partial completion: the rest of the request stays in flight after it
                            self.count(C::PartialComplete);
                            e.left -= nr;
                            let Some(sector) = ev.sector else {
                                return Err(Stop::Fallback("a completion without sector".into()));
                            };
                            let next = ovf(sector.checked_add(nr)).map_err(stop)?;
                            self.inflight.push(Key(dev, Some(next)), e);
                            return Ok(());
                        }
                        if t < e.issue {
                            self.count(C::NegativeLatency);
                        }
                        self.count(C::Matched);
                        self.device(e.dev);
                        let lat = sub(t, e.issue).map_err(stop)?;
                        let ins = match e.insert {
                            Some(x) => Some(sub(x, t0).map_err(stop)?),
                            None => None,
                        };
                        let issue = sub(e.issue, t0).map_err(stop)?;
                        let c = sub(t, t0).map_err(stop)?;
                        self.row(
                            e.dev,
                            e.sector,
                            Some(e.bytes),
                            e.rwbs,
                            ins,
                            Some(issue),
                            Some(c),
                            Some(lat),
                            Some(lat_bin(lat)),
                            Some(e.cpu),
                            Some(e.pid),
                            Some(e.comm),
                            ev.error,
                            e.requeues,
                        )
                        .map_err(io_stop)?;
                    }
                }
            }
            Action::Issue => {
                let dev = self.devs.id(ev.dev);
                let key = Key(dev, ev.sector);
                if ev.sector.is_none() {
                    self.count(C::IssueWithoutSector);
                    return Ok(());
                }
                let comm = self.comms.id(ev.comm);
                let e = match self.requeued.pop_front(key) {
                    Some(mut e) => {
                        e.issue = t;
                        e.cpu = ev.cpu;
                        e.pid = ev.pid;
                        e.comm = comm;
                        e
                    }
                    None => {
                        let t_ins = pop_front(&mut self.inserted, key, |v| v, |v| v);
                        let nbytes = match ev.bytes {
                            Some(b) => b,
                            None => ovf(ev.nr.unwrap_or(0).checked_mul(512)).map_err(stop)?,
                        };
                        Io {
                            dev,
                            sector: ev.sector,
                            bytes: nbytes,
                            rwbs: self.rwbs_id(ev.rwbs),
                            insert: t_ins,
                            issue: t,
                            cpu: ev.cpu,
                            pid: ev.pid,
                            comm,
                            left: ev.nr.unwrap_or(0),
                            requeues: 0,
                        }
                    }
                };
                let duplicate = match self.inflight.map.get_mut(&key) {
                    None => {
                        self.inflight.push(key, e);
                        None
                    }
                    // the previous issue at this sector never completed (its C was not recorded);
                    // the new one takes the key's place in the dict
                    Some(slot) if e.left > 0 => Some(std::mem::replace(&mut slot.1, Fifo::One(e))),
                    Some(slot) => {
                        slot.1.push(e); // flushes: several may be in flight at sector 0
                        None
                    }
                };
                if let Some(old) = duplicate {
                    self.count(C::IssueDuplicate);
                    for o in old.into_vec() {
                        self.unfinished(o, t0)?;
                    }
                }
            }
            Action::Insert => {
                let dev = self.devs.id(ev.dev);
                let key = Key(dev, ev.sector);
                match self.inserted.get_mut(&key) {
                    None => {
                        self.inserted.insert(key, Fifo::One(t));
                    }
                    Some(ins) => {
                        if ev.nr.unwrap_or(0) != 0 {
                            self.counts.add(C::InsertDuplicate as usize, 1);
                            *ins = Fifo::One(t);
                        } else {
                            ins.push(t);
                        }
                    }
                }
            }
            Action::Requeue => {
                let dev = self.devs.id(ev.dev);
                let key = Key(dev, ev.sector);
                match self.inflight.pop_front(key) {
                    None => self.count(C::RequeueWithoutIssue),
                    Some(mut e) => {
                        e.requeues += 1;
                        self.requeued.push(key, e);
                    }
                }
            }
            Action::Frontmerge => {
                if let (Some(sector), Some(nr)) = (ev.sector, ev.nr) {
                    if nr != 0 {
                        let dev = self.devs.id(ev.dev);
                        let old = Key(dev, Some(ovf(sector.checked_add(nr)).map_err(stop)?));
                        if let Some(ins) = self.inserted.remove(&old) {
                            self.inserted.insert(Key(dev, Some(sector)), ins);
                        }
                    }
                }
            }
            Action::RqMerge => {
                let dev = self.devs.id(ev.dev);
                pop_front(&mut self.inserted, Key(dev, ev.sector), |v| v, |v| v);
            }
            _ => {}
        }
        Ok(())
    }

    /// IoMatcher.finish, then the last bytes out.
    pub(super) fn finish(mut self) -> Result<MatchCounts, Stop> {
        let t0 = self.t0.unwrap_or(0);
        for e in self.inflight.drain() {
            self.unfinished(e, t0)?;
        }
        for e in self.requeued.drain() {
            self.unfinished(e, t0)?;
        }
        let left: usize = self.inserted.values().map(|f| f.len()).sum();
        if left > 0 {
            self.counts.add(C::InsertWithoutIssue as usize, left as u64);
        }
        self.sink.write_all(&self.out).map_err(io_stop)?;
        self.sink.flush().map_err(io_stop)?;
        let devices = self
            .dev_order
            .iter()
            .map(|&d| {
                (
                    self.devs.strs[d as usize].to_string(),
                    self.dev_counts[d as usize],
                )
            })
            .collect();
        Ok(MatchCounts {
            t0_ns: self.t0,
            first_ns: self.first,
            last_ns: self.last,
            counts: self.counts.items(&COUNT_NAMES),
            actions: self.actions.items(&ACTION_NAMES),
            devices,
            unmatched_completes: self.unmatched_completes,
            unfinished_issues: self.unfinished_issues,
            rows: self.rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_written_like_python() {
        for v in [
            0,
            1,
            -1,
            9,
            10,
            99,
            100,
            101,
            12345,
            -120,
            i64::MAX,
            i64::MIN,
            1_000_000_007,
        ] {
            let mut out = Vec::new();
            put_int(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }
}
