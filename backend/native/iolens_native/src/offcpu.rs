//! Off-CPU and wakeup stacks (`perf-offcpu`: `perf script` text of sched:sched_switch and
//! sched:sched_waking with call chains) -> the rows of offcpu_intervals, offcpu_wakings,
//! perf_stacks and perf_samples as four CSV files, in one pass: read (gzip detected, on a second
//! thread: block/reader.rs), parse, pair each switch-out with the thread's next switch-in, name
//! every stack.
//!
//! The rules are those of the Python reference, rule for rule: `OffcpuReader`
//! (iolens/formats/perf_offcpu.py: its header regex, the sched_switch / sched_waking trace
//! regexes of perf_sched.py, `frame_name`, `normalise_state`) and `read_offcpu`
//! (iolens/ingest/offcpu.py: pairing, the ends, the waker, stack ids in order of first use) and
//! `write_offcpu_csv` there (the CSV layout). The CSV files must be the same bytes and the
//! counters the same numbers; backend/tests/test_offcpu_native.py runs both on the same inputs.
//!
//! The text is read as Python reads it (UTF-8 with U+FFFD for invalid bytes, universal newlines:
//! block/reader.rs `each_line`). The regexes are matched by hand on ASCII event lines, with their
//! backtracking where it can change the answer (the lazy comm, the optional sample period); an
//! event line with a non-ASCII character (where Python's `\s`, `\w` or `\d` take Unicode
//! classes), a timestamp beyond 64 bits, or a read or gzip error, stop the pass with
//! `Stop::Fallback`: the caller then runs the Python reference on the whole file. A line the
//! reference rejects is `Stop::Format` with its number and the text its message quotes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::LazyLock;

use crate::block::{each_line, outcome, Outcome, Stop};
use crate::fold::{
    fix_partially_demangled_rust_symbol, stack_line_parts, tidy_generic, with_module_fallback,
};
use crate::fxhash::FxHashMap;
use crate::stream::Source;
use memchr::memmem::Finder;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

pub const DEFAULT_OFFCPU_CHUNK: usize = 1 << 20;

/// The counters of `read_offcpu` (OffcpuRun) and of `OffcpuReader`.
#[derive(Default, Debug)]
pub struct Counts {
    pub bytes: u64,
    pub lines: u64,
    pub switches: u64,
    pub wakings: u64,
    pub blocked_ns: i64,
    pub open_at_end: u64,
    pub open_at_end_ns: i64,
    pub in_at_start: u64,
    pub unpaired_out: u64,
    pub unpaired_in: u64,
    pub paired: u64,
    pub chainless: u64,
    pub stacks: u64,
    pub first_ts_ns: Option<i64>,
    pub last_ts_ns: Option<i64>,
    /// other events, in order of first sight (a Python dict's key order)
    pub skipped: Vec<(String, u64)>,
}

/// Where the four CSV files go.
pub struct Paths<'a> {
    pub intervals: &'a str,
    pub wakings: &'a str,
    pub stacks: &'a str,
    pub samples: &'a str,
}

// ------------------------------------------------------------------------------------------
// Python's view of ASCII text

/// `\s` of a Python str pattern on ASCII (str.isspace: also the separators \x1c-\x1f).
#[inline]
fn is_s(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1f)
}

/// str.isspace() of a whole line (Python's blank test `not line.strip()`).
fn blank(line: &str) -> bool {
    if line.is_ascii() {
        line.bytes().all(is_s)
    } else {
        line.chars()
            .all(|c| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
    }
}

/// `[0-9]{1,max}` at i, where the pattern's next item never matches a digit: the digits and the
/// index after them, or None (no digit, or more than max).
#[inline]
fn digits(b: &[u8], i: usize, max: usize) -> Option<(i64, usize)> {
    let n = b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if n == 0 || n > max {
        return None;
    }
    let v = b[i..i + n]
        .iter()
        .fold(0i64, |v, &c| v * 10 + (c - b'0') as i64);
    Some((v, i + n))
}

/// `-?[0-9]{1,max}` as above.
#[inline]
fn signed(b: &[u8], i: usize, max: usize) -> Option<(i64, usize)> {
    if b.get(i) == Some(&b'-') {
        digits(b, i + 1, max).map(|(v, e)| (-v, e))
    } else {
        digits(b, i, max)
    }
}

/// `\s+` at i: the index after it.
#[inline]
fn spaces(b: &[u8], i: usize) -> Option<usize> {
    let n = b[i.min(b.len())..].iter().take_while(|&&c| is_s(c)).count();
    (n > 0).then_some(i + n)
}

#[inline]
fn lit(b: &[u8], i: usize, s: &[u8]) -> Option<usize> {
    b[i.min(b.len())..].starts_with(s).then_some(i + s.len())
}

// ------------------------------------------------------------------------------------------
// The event line (perf_offcpu.py _HEAD):
// \s*(?P<comm>.*?)\s+(?P<pid>-?[0-9]{1,9})(?:/(?P<tid>-?[0-9]{1,9}))?\s+\[(?P<cpu>[0-9]{1,6})\]\s+
// (?P<sec>[0-9]{1,10})\.(?P<frac>[0-9]{1,9}):\s+(?:[0-9]{1,20}\s+)?(?P<event>[\w:.-]+):\s?

struct Head<'a> {
    /// the whitespace before the comm (`\s`), in bytes
    indent: usize,
    comm: &'a str,
    pid: Option<i64>,
    tid: i64,
    cpu: i64,
    sec: i64,
    frac: (i64, usize),
    event: &'a str,
    trace: &'a str,
}

/// `(?P<event>[\w:.-]+):\s?` at i: (event end, match end).
fn event_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let run = b[i..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'.' | b'-'))
        .count();
    // the greedy run gives back up to its last ':' (which is the pattern's ':')
    let c = b[i..i + run].iter().rposition(|&c| c == b':')?;
    if c == 0 {
        return None;
    }
    let end = i + c + 1;
    Some((
        i + c,
        if b.get(end).is_some_and(|&x| is_s(x)) {
            end + 1
        } else {
            end
        },
    ))
}

/// Everything after the comm, from p (the `\s+` that ends it).
#[allow(clippy::type_complexity)]
fn after_comm(
    b: &[u8],
    p: usize,
) -> Option<(
    Option<i64>,
    i64,
    i64,
    i64,
    (i64, usize),
    usize,
    usize,
    usize,
)> {
    let i = spaces(b, p)?;
    let (first, mut i) = signed(b, i, 9)?;
    let (pid, tid) = if b.get(i) == Some(&b'/') {
        let (t, e) = signed(b, i + 1, 9)?;
        i = e;
        (Some(first), t)
    } else {
        (None, first)
    };
    let i = spaces(b, i)?;
    let i = lit(b, i, b"[")?;
    let (cpu, i) = digits(b, i, 6)?;
    let i = lit(b, i, b"]")?;
    let i = spaces(b, i)?;
    let (sec, i) = digits(b, i, 10)?;
    let i = lit(b, i, b".")?;
    let (frac, fe) = digits(b, i, 9)?;
    let flen = fe - i;
    let i = lit(b, fe, b":")?;
    let i = spaces(b, i)?;
    // (?:[0-9]{1,20}\s+)? first with the period, then without
    if let Some((_, e)) = digits_any(b, i, 20) {
        if let Some(j) = spaces(b, e) {
            if let Some((ev_end, end)) = event_at(b, j) {
                return Some((pid, tid, cpu, sec, (frac, flen), j, ev_end, end));
            }
        }
    }
    let (ev_end, end) = event_at(b, i)?;
    Some((pid, tid, cpu, sec, (frac, flen), i, ev_end, end))
}

/// `[0-9]{1,max}` without a value (up to 20 digits do not fit an i64).
fn digits_any(b: &[u8], i: usize, max: usize) -> Option<((), usize)> {
    let n = b[i.min(b.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    (n > 0 && n <= max).then_some(((), i + n))
}

fn head(line: &str) -> Option<Head<'_>> {
    let b = line.as_bytes();
    let w = b.iter().take_while(|&&c| is_s(c)).count();
    // the lazy comm: the first `\s` after which the rest matches; failing that, `\s*` gives back
    // one space and the comm is empty
    let found = (w..b.len())
        .filter(|&p| is_s(b[p]))
        .find_map(|p| after_comm(b, p).map(|r| (w, p, r)))
        .or_else(|| {
            (w > 0)
                .then(|| after_comm(b, w - 1).map(|r| (w - 1, w - 1, r)))
                .flatten()
        });
    let (cs, ce, (pid, tid, cpu, sec, frac, es, ee, end)) = found?;
    Some(Head {
        indent: w,
        comm: &line[cs..ce],
        pid,
        tid,
        cpu,
        sec,
        frac,
        event: &line[es..ee],
        trace: &line[end..],
    })
}

// ------------------------------------------------------------------------------------------
// The trace text (perf_sched.py _SWITCH and _WAKE, matched at its start)

struct SwitchTrace<'a> {
    prev_comm: &'a str,
    prev_pid: i64,
    prev_state: &'a str,
    next_pid: i64,
}

/// The positions of a literal in s from `from`, in order (a finder built once per literal).
fn occurrences<'a>(
    s: &'a str,
    from: usize,
    finder: &'a Finder<'static>,
) -> impl Iterator<Item = usize> + 'a {
    finder
        .find_iter(&s.as_bytes()[from..])
        .map(move |i| from + i)
}

static PREV_PID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" prev_pid="));
static NEXT_PID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" next_pid="));
static PID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" pid="));

// prev_comm=(.*?) prev_pid=([0-9]{1,9}) prev_prio=(-?[0-9]{1,9}) prev_state=(\S*)
//  ==> next_comm=(.*?) next_pid=([0-9]{1,9}) next_prio=(-?[0-9]{1,9})
fn switch_trace(t: &str) -> Option<SwitchTrace<'_>> {
    let b = t.as_bytes();
    let s = lit(b, 0, b"prev_comm=")?;
    occurrences(t, s, &PREV_PID).find_map(|i| {
        let (prev_pid, j) = digits(b, i + 10, 9)?;
        let j = lit(b, j, b" prev_prio=")?;
        let (_, j) = signed(b, j, 9)?;
        let j = lit(b, j, b" prev_state=")?;
        let st_end = j + b[j..].iter().take_while(|&&c| !is_s(c)).count();
        let ns = lit(b, st_end, b" ==> next_comm=")?;
        let next_pid = occurrences(t, ns, &NEXT_PID).find_map(|k| {
            let (np, e) = digits(b, k + 10, 9)?;
            let e = lit(b, e, b" next_prio=")?;
            let e = if b.get(e) == Some(&b'-') { e + 1 } else { e };
            b.get(e).filter(|c| c.is_ascii_digit())?;
            Some(np)
        })?;
        Some(SwitchTrace {
            prev_comm: &t[s..i],
            prev_pid,
            prev_state: &t[j..st_end],
            next_pid,
        })
    })
}

// comm=(.*?) pid=([0-9]{1,9}) prio=(-?[0-9]{1,9})(?: success=\d+)?(?: target_cpu=([0-9]{1,6}))?
fn wake_trace(t: &str) -> Option<(&str, i64, Option<i64>)> {
    let b = t.as_bytes();
    let s = lit(b, 0, b"comm=")?;
    occurrences(t, s, &PID).find_map(|i| {
        let (pid, j) = digits(b, i + 5, 9)?;
        let j = lit(b, j, b" prio=")?;
        let j = if b.get(j) == Some(&b'-') { j + 1 } else { j };
        let n = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        let mut j = j + n.min(9);
        if let Some(e) = lit(b, j, b" success=") {
            let m = b[e..].iter().take_while(|c| c.is_ascii_digit()).count();
            if m > 0 {
                j = e + m;
            }
        }
        let target = lit(b, j, b" target_cpu=").and_then(|e| {
            let m = b[e..].iter().take_while(|c| c.is_ascii_digit()).count();
            (m > 0).then(|| {
                b[e..e + m.min(6)]
                    .iter()
                    .fold(0i64, |v, &c| v * 10 + (c - b'0') as i64)
            })
        });
        Some((&t[s..i], pid, target))
    })
}

const STATE_BITS: [(u64, &str); 8] = [
    (0x01, "S"),
    (0x02, "D"),
    (0x04, "T"),
    (0x08, "t"),
    (0x10, "X"),
    (0x20, "Z"),
    (0x40, "P"),
    (0x80, "I"),
];

/// Python's `int(s, 0)` modulo 2^64 (the state bits only need the low ones); None where Python
/// raises ValueError.
fn py_int0(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let (base, body, prefixed) = match b {
        [b'0', b'x' | b'X', rest @ ..] => (16, rest, true),
        [b'0', b'o' | b'O', rest @ ..] => (8, rest, true),
        [b'0', b'b' | b'B', rest @ ..] => (2, rest, true),
        _ => (10, b, false),
    };
    // "0x_1f" is allowed; otherwise one underscore between digits
    let body = if prefixed && body.first() == Some(&b'_') {
        &body[1..]
    } else {
        body
    };
    if body.is_empty() || body[0] == b'_' || body[body.len() - 1] == b'_' {
        return None;
    }
    let mut v: u64 = 0;
    let mut prev_us = false;
    let mut nonzero = false;
    for &c in body {
        if c == b'_' {
            if prev_us {
                return None;
            }
            prev_us = true;
            continue;
        }
        prev_us = false;
        let d = (c as char).to_digit(base)? as u64;
        nonzero |= d != 0;
        v = v.wrapping_mul(base as u64).wrapping_add(d);
    }
    // a decimal literal does not start with 0 unless it is all zeros
    if base == 10 && body[0] == b'0' && nonzero {
        return None;
    }
    Some(v)
}

/// perf_sched.py `normalise_state`, written into out.
fn normalise_state(raw: &str, out: &mut String) {
    out.clear();
    let v = match raw.as_bytes().first() {
        Some(c) if c.is_ascii_digit() => py_int0(raw),
        _ => None,
    };
    let Some(v) = v else {
        out.push_str(raw);
        return;
    };
    for (bit, name) in STATE_BITS {
        if v & bit != 0 {
            if !out.is_empty() {
                out.push('|');
            }
            out.push_str(name);
        }
    }
    if out.is_empty() {
        out.push('R');
    }
    if v & 0x100 != 0 {
        out.push('+');
    }
}

// ------------------------------------------------------------------------------------------
// Output

struct Csv {
    w: BufWriter<File>,
    num: [u8; 20],
}

/// A field of a row, as write_offcpu_csv writes it: an integer, text in double quotes (a quote
/// doubled), or nothing (None).
enum Cell<'a> {
    Int(i64),
    Opt(Option<i64>),
    Text(&'a [u8]),
    OptText(Option<&'a [u8]>),
}

impl Csv {
    fn create(path: &str) -> io::Result<Csv> {
        Ok(Csv {
            w: BufWriter::with_capacity(1 << 18, File::create(path)?),
            num: [0; 20],
        })
    }
    fn int(&mut self, v: i64) -> io::Result<()> {
        if v < 0 {
            self.w.write_all(b"-")?;
        }
        let mut x = v.unsigned_abs();
        let mut i = self.num.len();
        loop {
            i -= 1;
            self.num[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        self.w.write_all(&self.num[i..])
    }
    fn text(&mut self, s: &[u8]) -> io::Result<()> {
        self.w.write_all(b"\"")?;
        let mut from = 0;
        while let Some(i) = memchr::memchr(b'"', &s[from..]) {
            self.w.write_all(&s[from..from + i + 1])?;
            self.w.write_all(b"\"")?;
            from += i + 1;
        }
        self.w.write_all(&s[from..])?;
        self.w.write_all(b"\"")
    }
    /// One row: the fields separated by ',', then "\n".
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), Stop> {
        self.write_row(cells).map_err(Stop::Io)
    }
    fn write_row(&mut self, cells: &[Cell<'_>]) -> io::Result<()> {
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                self.w.write_all(b",")?;
            }
            match *cell {
                Cell::Int(v) | Cell::Opt(Some(v)) => self.int(v)?,
                Cell::Text(s) | Cell::OptText(Some(s)) => self.text(s)?,
                Cell::Opt(None) | Cell::OptText(None) => {}
            }
        }
        self.w.write_all(b"\n")
    }
}

/// A switch-out waiting for the thread's switch-in.
struct Pending {
    t_out: i64,
    cpu_out: i64,
    pid: Option<i64>,
    comm: Box<str>,
    state: Box<str>,
    sid: i64,
}

/// The open event: its header and its frames.
struct Open {
    line: u64,
    ts: i64,
    cpu: i64,
    pid: Option<i64>,
    tid: i64,
    comm: String,
    event: String,
    trace: String,
}

struct Pass {
    c: Counts,
    stack_base: i64,
    ids: FxHashMap<Box<[u8]>, i64>,
    pending: FxHashMap<i64, Pending>,
    woken: FxHashMap<i64, (i64, Box<str>)>,
    seen: FxHashMap<i64, ()>,
    intervals: Csv,
    wakings: Csv,
    stacks: Csv,
    samples: Csv,
    /// frame text of the open event, leaf first, each frame's range in `fbuf`
    fbuf: Vec<u8>,
    frames: Vec<(usize, usize)>,
    key: Vec<u8>,
    state: String,
}

/// `_comm_frame`: spaces as '_', ';' as ':', "[unnamed]" for an empty comm.
fn comm_frame(comm: &str, out: &mut Vec<u8>) {
    if comm.is_empty() {
        out.extend_from_slice(b"[unnamed]");
        return;
    }
    out.extend(comm.bytes().map(|c| match c {
        b' ' => b'_',
        b';' => b':',
        c => c,
    }));
}

impl Pass {
    /// The folded frames (root first) appended to key; false when the event has no frame.
    fn join_frames(&mut self) -> bool {
        if self.frames.is_empty() {
            return false;
        }
        for (n, &(s, e)) in self.frames.iter().rev().enumerate() {
            if n > 0 {
                self.key.push(b';');
            }
            self.key.extend_from_slice(&self.fbuf[s..e]);
        }
        true
    }

    fn stack_id(&mut self) -> Result<i64, Stop> {
        if let Some(&sid) = self.ids.get(&self.key[..]) {
            return Ok(sid);
        }
        let sid = self.stack_base + self.ids.len() as i64;
        self.ids.insert(self.key[..].into(), sid);
        self.stacks.row(&[Cell::Int(sid), Cell::Text(&self.key)])?;
        Ok(sid)
    }

    /// A frame line of the open event (`frame_name`).
    fn frame(&mut self, line: &str) {
        let Some((pc, raw, module)) = stack_line_parts(line) else {
            return;
        };
        // "+0x1b" at the end ("\+0x[0-9a-fA-F]+$")
        // (only the last '+' can start it: hex digits hold no '+')
        let mut func = raw;
        if let Some(i) = memchr::memrchr(b'+', raw.as_bytes()) {
            let rest = &raw.as_bytes()[i + 1..];
            if rest.len() > 2
                && rest.starts_with(b"0x")
                && rest[2..].iter().all(u8::is_ascii_hexdigit)
            {
                func = &raw[..i];
            }
        }
        if func.starts_with('(') {
            return;
        }
        let start = self.fbuf.len();
        with_module_fallback(&mut self.fbuf, module, func, pc, false);
        tidy_generic(&mut self.fbuf, start);
        // a Rust hash at the end ("h" and 16 hex digits: what the fix looks for) is rare: test
        // the bytes before making a str of the frame (str text with ASCII bytes replaced or cut
        // at ASCII bytes: still UTF-8)
        let f = &self.fbuf[start..];
        let hashed = f.len() >= 17
            && f[f.len() - 17] == b'h'
            && f[f.len() - 16..].iter().all(u8::is_ascii_hexdigit);
        if hashed {
            if let Ok(text) = std::str::from_utf8(f) {
                if let std::borrow::Cow::Owned(s) = fix_partially_demangled_rust_symbol(text) {
                    self.fbuf.truncate(start);
                    self.fbuf.extend_from_slice(s.as_bytes());
                }
            }
        }
        self.frames.push((start, self.fbuf.len()));
    }

    /// `_make` and the pairing of `read_offcpu` for the open event.
    fn finish_event(&mut self, ev: &Open) -> Result<(), Stop> {
        let chain = !self.frames.is_empty();
        match ev.event.as_str() {
            "sched:sched_switch" => {
                let Some(sw) = switch_trace(&ev.trace) else {
                    return Err(format_stop(ev.line, "switch", &ev.trace));
                };
                if !chain {
                    self.c.chainless += 1;
                }
                self.c.switches += 1;
                let t = ev.ts;
                let mut state = std::mem::take(&mut self.state);
                normalise_state(sw.prev_state, &mut state);
                if sw.prev_pid != 0 {
                    if self.pending.contains_key(&sw.prev_pid) {
                        self.c.unpaired_out += 1;
                    }
                    self.seen.insert(sw.prev_pid, ());
                    self.key.clear();
                    comm_frame(sw.prev_comm, &mut self.key);
                    self.key.extend_from_slice(b";[state ");
                    self.key
                        .extend_from_slice(if state == "R" || state == "R+" {
                            b"R"
                        } else {
                            state.as_bytes()
                        });
                    self.key.push(b']');
                    let mark = self.key.len();
                    self.key.push(b';');
                    if !self.join_frames() || self.key.len() == mark + 1 {
                        // no frame, or frames that join to "" (Python: `if ev.frames`)
                        self.key.truncate(mark);
                    }
                    let sid = self.stack_id()?;
                    self.pending.insert(
                        sw.prev_pid,
                        Pending {
                            t_out: t,
                            cpu_out: ev.cpu,
                            pid: ev.pid,
                            comm: sw.prev_comm.into(),
                            state: state.as_str().into(),
                            sid,
                        },
                    );
                    self.woken.remove(&sw.prev_pid);
                }
                self.state = state;
                let nxt = sw.next_pid;
                if nxt != 0 {
                    if let Some(p) = self.pending.remove(&nxt) {
                        let w = self.woken.remove(&nxt);
                        let blocked = t
                            .checked_sub(p.t_out)
                            .ok_or_else(|| Stop::Fallback("times beyond 64 bits".into()))?;
                        self.intervals.row(&[
                            Cell::Int(nxt),
                            Cell::Opt(p.pid),
                            Cell::Text(p.comm.as_bytes()),
                            Cell::Text(p.state.as_bytes()),
                            Cell::Int(p.cpu_out),
                            Cell::Int(p.t_out),
                            Cell::Int(ev.cpu),
                            Cell::Int(t),
                            Cell::Int(blocked),
                            Cell::Int(p.sid),
                            Cell::Opt(w.as_ref().map(|w| w.0)),
                            Cell::OptText(w.as_ref().map(|w| w.1.as_bytes())),
                        ])?;
                        self.samples.row(&[
                            Cell::Int(p.t_out),
                            Cell::Int(p.cpu_out),
                            Cell::Opt(p.pid),
                            Cell::Int(nxt),
                            Cell::Text(p.comm.as_bytes()),
                            Cell::Int(p.sid),
                            Cell::Int(blocked),
                            Cell::Text(b"offcpu"),
                        ])?;
                        self.c.blocked_ns = self
                            .c
                            .blocked_ns
                            .checked_add(blocked)
                            .ok_or_else(|| Stop::Fallback("times beyond 64 bits".into()))?;
                        self.c.paired += 1;
                    } else if self.seen.contains_key(&nxt) {
                        self.c.unpaired_in += 1;
                    } else {
                        self.c.in_at_start += 1;
                    }
                    self.seen.insert(nxt, ());
                }
            }
            "sched:sched_waking" => {
                let Some((comm, wakee, target)) = wake_trace(&ev.trace) else {
                    return Err(format_stop(ev.line, "waking", &ev.trace));
                };
                if !chain {
                    self.c.chainless += 1;
                }
                self.c.wakings += 1;
                if self.pending.contains_key(&wakee) && !self.woken.contains_key(&wakee) {
                    self.woken.insert(wakee, (ev.tid, ev.comm.as_str().into()));
                }
                self.key.clear();
                comm_frame(&ev.comm, &mut self.key);
                self.key.push(b';');
                let mark = self.key.len();
                if !self.join_frames() || self.key.len() == mark {
                    self.key.truncate(mark);
                } else {
                    self.key.push(b';');
                }
                self.key.extend_from_slice(b"[wakes ");
                comm_frame(comm, &mut self.key);
                self.key.push(b']');
                let sid = self.stack_id()?;
                self.wakings.row(&[
                    Cell::Int(ev.ts),
                    Cell::Int(ev.cpu),
                    Cell::Int(ev.tid),
                    Cell::Opt(ev.pid),
                    Cell::Text(ev.comm.as_bytes()),
                    Cell::Int(wakee),
                    Cell::Text(comm.as_bytes()),
                    Cell::Opt(target),
                    Cell::Int(sid),
                ])?;
                self.samples.row(&[
                    Cell::Int(ev.ts),
                    Cell::Int(ev.cpu),
                    Cell::Opt(ev.pid),
                    Cell::Int(ev.tid),
                    Cell::Text(ev.comm.as_bytes()),
                    Cell::Int(sid),
                    Cell::Int(1),
                    Cell::Text(b"wakeup"),
                ])?;
            }
            other => match self.c.skipped.iter_mut().find(|(k, _)| k == other) {
                Some((_, n)) => *n += 1,
                None => self.c.skipped.push((other.to_string(), 1)),
            },
        }
        Ok(())
    }
}

fn format_stop(line: u64, kind: &'static str, text: &str) -> Stop {
    Stop::Format {
        line,
        kind,
        name: String::new(),
        text: text.to_string(),
    }
}

/// The whole pass: `src` -> the four CSV files, counters in the outcome. `stack_base`: the first
/// stack id (OFFCPU_STACK_BASE).
pub fn offcpu_csv(
    src: Source,
    paths: &Paths<'_>,
    stack_base: i64,
    chunk: usize,
) -> io::Result<Outcome<Box<Counts>>> {
    let pass = Pass {
        c: Counts::default(),
        stack_base,
        ids: FxHashMap::default(),
        pending: FxHashMap::default(),
        woken: FxHashMap::default(),
        seen: FxHashMap::default(),
        intervals: Csv::create(paths.intervals)?,
        wakings: Csv::create(paths.wakings)?,
        stacks: Csv::create(paths.stacks)?,
        samples: Csv::create(paths.samples)?,
        fbuf: Vec::with_capacity(4096),
        frames: Vec::with_capacity(128),
        key: Vec::with_capacity(4096),
        state: String::new(),
    };
    outcome(run(pass, src, chunk))
}

fn run(mut pass: Pass, src: Source, chunk: usize) -> Result<Box<Counts>, Stop> {
    let mut open: Option<Open> = None;
    // the open event's line was padded: no call chain follows it (perf_offcpu.py's rules)
    let mut padded = false;
    let mut lineno = 0u64;
    let bytes = each_line(src, chunk, |line, ascii| {
        lineno += 1;
        let line = line.strip_suffix('\n').unwrap_or(line);
        if if ascii {
            line.bytes().all(is_s)
        } else {
            blank(line)
        } {
            if let Some(ev) = open.take() {
                pass.finish_event(&ev)?;
                pass.frames.clear();
                pass.fbuf.clear();
            }
            return Ok(());
        }
        let first = line.as_bytes()[0];
        let indented = first == b' ' || first == b'\t';
        if indented && open.is_some() && !padded {
            pass.frame(line);
            return Ok(());
        }
        if first == b'#' {
            return Ok(());
        }
        // the error if it is no event line: an indented line opening a paragraph reads as a chain
        let kind = if indented && open.is_none() {
            "chain"
        } else {
            "header"
        };
        if let Some(ev) = open.take() {
            // an event without a chain and no blank line (perf record without -g)
            pass.finish_event(&ev)?;
            pass.frames.clear();
            pass.fbuf.clear();
        }
        if !ascii {
            return Err(Stop::Fallback(format!(
                "line {lineno}: an event line with non-ASCII text"
            )));
        }
        let Some(h) = head(line) else {
            return Err(format_stop(lineno, kind, line));
        };
        // perf pads the comm to 16 columns only when it prints no call chain
        padded = h.indent > 0 && (!h.comm.is_empty() || h.indent >= 16);
        // frac[:9] * 10 ** (9 - len)
        let (frac, flen) = h.frac;
        let ts = h
            .sec
            .checked_mul(1_000_000_000)
            .and_then(|s| s.checked_add(frac * 10i64.pow(9 - flen as u32)))
            .ok_or_else(|| Stop::Fallback(format!("line {lineno}: a time beyond 64 bits")))?;
        if pass.c.first_ts_ns.is_none() {
            pass.c.first_ts_ns = Some(ts);
        }
        pass.c.last_ts_ns = Some(ts);
        open = Some(Open {
            line: lineno,
            ts,
            cpu: h.cpu,
            pid: h.pid.filter(|&p| p >= 0),
            tid: h.tid,
            comm: h.comm.to_string(),
            event: h.event.to_string(),
            trace: h.trace.to_string(),
        });
        Ok(())
    })?;
    if let Some(ev) = open.take() {
        pass.finish_event(&ev)?;
    }
    let end = pass.c.last_ts_ns.unwrap_or(0);
    pass.c.open_at_end = pass.pending.len() as u64;
    let mut open_ns: i64 = 0;
    for p in pass.pending.values() {
        open_ns = end
            .checked_sub(p.t_out)
            .and_then(|d| open_ns.checked_add(d))
            .ok_or_else(|| Stop::Fallback("times beyond 64 bits".into()))?;
    }
    pass.c.open_at_end_ns = open_ns;
    pass.c.bytes = bytes;
    pass.c.lines = lineno;
    pass.c.stacks = pass.ids.len() as u64;
    for c in [
        &mut pass.intervals,
        &mut pass.wakings,
        &mut pass.stacks,
        &mut pass.samples,
    ] {
        c.w.flush().map_err(Stop::Io)?;
    }
    Ok(Box::new(pass.c))
}

/// Python: `offcpu_csv(source, intervals_csv, wakings_csv, stacks_csv, samples_csv, *,
/// stack_base, chunk_bytes=0)`. Returns a dict: {"fallback": reason} when the Python reference
/// must read this input, {"error": (line, kind, text)} for a line it rejects (kind: "chain",
/// "header", "switch", "waking"), else the counters. chunk_bytes 0 = 1 MiB (tests use tiny ones).
#[pyfunction]
#[pyo3(name = "offcpu_csv")]
#[pyo3(signature = (source, intervals_csv, wakings_csv, stacks_csv, samples_csv, *, stack_base,
                    chunk_bytes=0))]
#[allow(clippy::too_many_arguments)]
pub fn offcpu_csv_py<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    intervals_csv: String,
    wakings_csv: String,
    stacks_csv: String,
    samples_csv: String,
    stack_base: i64,
    chunk_bytes: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let src = crate::source_of(source)?;
    let chunk = if chunk_bytes == 0 {
        DEFAULT_OFFCPU_CHUNK
    } else {
        chunk_bytes
    };
    let paths = Paths {
        intervals: &intervals_csv,
        wakings: &wakings_csv,
        stacks: &stacks_csv,
        samples: &samples_csv,
    };
    let out = py.detach(|| offcpu_csv(src, &paths, stack_base, chunk))?;
    let d = PyDict::new(py);
    match out {
        Outcome::Stopped(Stop::Fallback(why)) => d.set_item("fallback", why)?,
        Outcome::Stopped(Stop::Format {
            line, kind, text, ..
        }) => d.set_item("error", (line, kind, text))?,
        Outcome::Stopped(Stop::Io(e)) => return Err(e.into()),
        Outcome::Done(c) => {
            d.set_item("bytes", c.bytes)?;
            d.set_item("lines", c.lines)?;
            d.set_item("switches", c.switches)?;
            d.set_item("wakings", c.wakings)?;
            d.set_item("blocked_ns", c.blocked_ns)?;
            d.set_item("open_at_end", c.open_at_end)?;
            d.set_item("open_at_end_ns", c.open_at_end_ns)?;
            d.set_item("in_at_start", c.in_at_start)?;
            d.set_item("unpaired_out", c.unpaired_out)?;
            d.set_item("unpaired_in", c.unpaired_in)?;
            d.set_item("paired", c.paired)?;
            d.set_item("chainless", c.chainless)?;
            d.set_item("stacks", c.stacks)?;
            d.set_item("first_ts_ns", c.first_ts_ns)?;
            d.set_item("last_ts_ns", c.last_ts_ns)?;
            d.set_item(
                "skipped",
                PyList::new(py, c.skipped.iter().map(|(k, v)| (k.as_str(), *v)))?,
            )?;
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_with_spaces_and_digits_in_the_comm() {
        let h = head("lto cgu.0 7  3520/7751  [000] 10.000020000: sched:sched_switch: prev_comm=x")
            .unwrap();
        assert_eq!(h.comm, "lto cgu.0 7");
        assert_eq!((h.pid, h.tid, h.cpu, h.sec), (Some(3520), 7751, 0, 10));
        assert_eq!(h.event, "sched:sched_switch");
        assert_eq!(h.trace, "prev_comm=x");
        let h = head(":-1 13802/-1    [000] 10.000040000: sched:sched_switch: t").unwrap();
        assert_eq!((h.comm, h.pid, h.tid), (":-1", Some(13802), -1));
        // the empty comm: `\s*` gives back a space
        let h = head("  7/7 [001] 1.5: sched:sched_waking: comm=a pid=1 prio=1").unwrap();
        assert_eq!((h.comm, h.tid, h.frac), ("", 7, (5, 1)));
        // an empty comm as perf prints it before a call chain ("%s " then "%7d/%-7d ")
        let h =
            head("    4242/4242    [000] 1.5: sched:sched_waking: comm=a pid=1 prio=1").unwrap();
        assert_eq!((h.comm, h.indent, h.pid, h.tid), ("", 4, Some(4242), 4242));
        // padded to 16 columns (no call chain)
        let h = head("             fio    7894/7894    [001] 1.5: sched:sched_switch: x").unwrap();
        assert_eq!((h.comm, h.indent, h.tid), ("fio", 13, 7894));
        // a sample period before the event
        let h = head("a 1 [001] 1.5: 100 cycles:u: x").unwrap();
        assert_eq!((h.pid, h.tid, h.event, h.trace), (None, 1, "cycles:u", "x"));
        assert!(head("garbage here").is_none());
    }

    #[test]
    fn traces() {
        let s = switch_trace("prev_comm=a b prev_pid=7 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 next_pid=0 next_prio=120").unwrap();
        assert_eq!(
            (s.prev_comm, s.prev_pid, s.prev_state, s.next_pid),
            ("a b", 7, "R+", 0)
        );
        assert!(switch_trace("prev_kom=a prev_pid=7").is_none());
        assert_eq!(
            wake_trace("comm=fio pid=101 prio=120 target_cpu=001"),
            Some(("fio", 101, Some(1)))
        );
        assert_eq!(
            wake_trace("comm=x pid=1 prio=-1 success=1"),
            Some(("x", 1, None))
        );
    }

    #[test]
    fn states() {
        let mut s = String::new();
        for (raw, want) in [
            ("S", "S"),
            ("R+", "R+"),
            ("0", "R"),
            ("2", "D"),
            ("0x102", "D+"),
            ("3", "S|D"),
            ("0x_1", "S"),
            ("01", "01"),
            ("1__0", "1__0"),
            ("00", "R"),
        ] {
            normalise_state(raw, &mut s);
            assert_eq!(s, want, "{raw}");
        }
    }
}
