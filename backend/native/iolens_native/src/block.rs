//! Block-layer events of `perf script` text -> one CSV row per I/O, in one pass: read (gzip
//! detected), parse, match issue to completion, write the CSV that ingest loads into block_ios.
//!
//! The rules are those of the Python reference, rule for rule: `PerfBlockReader.events`
//! (iolens/formats/perf_block.py: its fast path and its slow path, the counters it keeps) and
//! `IoMatcher` (iolens/ingest_block.py: every matching rule, the order of the rows, the counters,
//! lat_bin) and `csv.writer` (excel dialect, "\n" line ends). The output must be the same bytes
//! and the same counters; backend/tests/test_block_native.py runs both on the same inputs.
//!
//! The text is read as Python reads it: UTF-8 with invalid bytes replaced (U+FFFD, maximal
//! subparts, as Python's "replace" handler), universal newlines ("\r\n" and a lone "\r" end a line
//! too), and Python's string operations are mirrored on it: `str.split()` / `strip()` on
//! Unicode whitespace, slices counted in characters where a slice end is not an ASCII separator,
//! `int()` with its sign, underscores and ASCII-whitespace strip.
//!
//! What is not reimplemented is detected and answered with `Stop::Fallback`: the caller then runs
//! the Python reader on the whole file, which gives the exact result. That covers non-ASCII text
//! where Python's `int()` or `re` would read Unicode digits or spaces, integers beyond 64 bits,
//! and read or gzip errors (whose Python exceptions are Python's own). A malformed line that Python
//! rejects is `Stop::Format` with the line number and the text that Python's message quotes (the
//! wrapper formats the message, `repr` included).
//!
//! Reading and decompression run on a second thread, the rest on the calling one.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{self, Read, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread;

use memchr::memmem;

use crate::fxhash::FxHashMap;
use crate::stream::{self, Source};

pub const DEFAULT_BLOCK_CHUNK: usize = 1 << 20;
const QUEUE_DEPTH: usize = 4;
/// (sector_t)-1: block_rq_complete prints a flush's completion at this sector.
const NO_SECTOR: i128 = u64::MAX as i128;
const LAT_BINS_PER_OCTAVE: f64 = 8.0;

// --- Python's view of the text ---------------------------------------------------------------

/// Class of a byte for str.isspace(): 0 not whitespace, 1 ASCII whitespace (\t \n \v \f \r,
/// \x1c-\x1f, space), 2 part of a non-ASCII character (decode it to know).
static WS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = if i >= 0x80 {
            2
        } else if (i >= 0x09 && i <= 0x0d) || (i >= 0x1c && i <= 0x20) {
            1
        } else {
            0
        };
        i += 1;
    }
    t
};

#[inline(always)]
fn ascii_ws(b: u8) -> bool {
    WS[b as usize] == 1
}

/// str.isspace() (and re's \s): Unicode White_Space plus \x1c-\x1f.
#[inline]
fn py_space(c: char) -> bool {
    matches!(c, '\u{09}'..='\u{0d}' | '\u{1c}'..='\u{20}' | '\u{85}' | '\u{a0}' | '\u{1680}'
        | '\u{2000}'..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// (is whitespace, byte length) of the character starting at byte i; `A`: s is ASCII.
#[inline(always)]
fn ws_at<const A: bool>(s: &str, i: usize) -> (bool, usize) {
    if A {
        return (WS[s.as_bytes()[i] as usize] == 1, 1);
    }
    match WS[s.as_bytes()[i] as usize] {
        0 => (false, 1),
        1 => (true, 1),
        _ => ws_at_wide(s, i),
    }
}

#[cold]
fn ws_at_wide(s: &str, i: usize) -> (bool, usize) {
    let c = s[i..].chars().next().unwrap();
    (py_space(c), c.len_utf8())
}

/// (is whitespace, start) of the character ending at byte i (i > 0); `A`: s is ASCII.
#[inline(always)]
fn ws_before<const A: bool>(s: &str, i: usize) -> (bool, usize) {
    if A {
        return (WS[s.as_bytes()[i - 1] as usize] == 1, i - 1);
    }
    match WS[s.as_bytes()[i - 1] as usize] {
        0 => (false, i - 1),
        1 => (true, i - 1),
        _ => ws_before_wide(s, i),
    }
}

#[cold]
fn ws_before_wide(s: &str, i: usize) -> (bool, usize) {
    let c = s[..i].chars().next_back().unwrap();
    (py_space(c), i - c.len_utf8())
}

fn lstrip<const A: bool>(s: &str) -> &str {
    // perf pads comm with spaces: skip those first
    let mut i = s.bytes().take_while(|&b| b == b' ').count();
    while i < s.len() {
        let (w, n) = ws_at::<A>(s, i);
        if !w {
            break;
        }
        i += n;
    }
    &s[i..]
}

fn rstrip(s: &str) -> &str {
    let mut e = s.len();
    while e > 0 {
        let (w, st) = ws_before::<false>(s, e);
        if !w {
            break;
        }
        e = st;
    }
    &s[..e]
}

fn strip(s: &str) -> &str {
    rstrip(lstrip::<false>(s))
}

fn first_char_len(s: &str) -> usize {
    s.chars().next().map_or(0, |c| c.len_utf8())
}

fn last_char_len(s: &str) -> usize {
    s.chars().next_back().map_or(0, |c| c.len_utf8())
}

/// s[1:-1]
fn inner(s: &str) -> &str {
    let a = first_char_len(s);
    let b = s.len() - last_char_len(s);
    if a < b {
        &s[a..b]
    } else {
        ""
    }
}

fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// s[a:b] with byte bounds, empty when a > b (Python's slice of crossed bounds).
#[inline]
fn slice(s: &str, a: usize, b: usize) -> &str {
    if a <= b {
        &s[a..b]
    } else {
        ""
    }
}

/// The first tokens of `s.split()`, the last one and their number.
struct Split<'a> {
    tok: [&'a str; 5],
    n: usize,
    last: &'a str,
}

impl<'a> Split<'a> {
    #[inline]
    fn of<const A: bool>(s: &'a str) -> Self {
        let mut sp = Split {
            tok: [""; 5],
            n: 0,
            last: "",
        };
        let len = s.len();
        let mut i = 0;
        loop {
            while i < len {
                let (w, n) = ws_at::<A>(s, i);
                if !w {
                    break;
                }
                i += n;
            }
            if i >= len {
                return sp;
            }
            let start = i;
            while i < len {
                let (w, n) = ws_at::<A>(s, i);
                if w {
                    break;
                }
                i += n;
            }
            let t = &s[start..i];
            if sp.n < 5 {
                sp.tok[sp.n] = t;
            }
            sp.n += 1;
            sp.last = t;
        }
    }
}

/// s.rsplit(None, 3) when it has 4 parts: [rest, a, b, c] (rest keeps its leading whitespace).
fn rsplit4<const A: bool>(s: &str) -> Option<[&str; 4]> {
    let mut out = [""; 4];
    let mut e = s.len();
    for slot in (1..4).rev() {
        while e > 0 {
            let (w, st) = ws_before::<A>(s, e);
            if !w {
                break;
            }
            e = st;
        }
        if e == 0 {
            return None;
        }
        let end = e;
        while e > 0 {
            let (w, st) = ws_before::<A>(s, e);
            if w {
                break;
            }
            e = st;
        }
        out[slot] = &s[e..end];
    }
    while e > 0 {
        let (w, st) = ws_before::<A>(s, e);
        if !w {
            break;
        }
        e = st;
    }
    if e == 0 {
        return None;
    }
    out[0] = &s[..e];
    Some(out)
}

/// Why a value could not be read: Python raises ValueError/IndexError (the line's error), or
/// Python might read it where this code does not try (Unicode digits, huge integers).
#[derive(Debug)]
enum Fail {
    Invalid,
    Fallback(&'static str),
}

type R<T> = Result<T, Fail>;

/// int(s) of Python, base 10: ASCII whitespace stripped, a sign, digits with single underscores
/// between them. Non-ASCII text (Unicode digits and spaces are valid there) falls back.
fn py_int(s: &str) -> R<i128> {
    let b = s.as_bytes();
    if !s.is_ascii() {
        return Err(Fail::Fallback("a number with non-ASCII characters"));
    }
    let sp = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let (mut i, mut e) = (0, b.len());
    while i < e && sp(b[i]) {
        i += 1;
    }
    while e > i && sp(b[e - 1]) {
        e -= 1;
    }
    let mut neg = false;
    if i < e && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut v: i128 = 0;
    let mut after_digit = false;
    for &c in &b[i..e] {
        if c.is_ascii_digit() {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add((c - b'0') as i128))
                .ok_or(Fail::Fallback("an integer beyond 64 bits"))?;
            after_digit = true;
        } else if c == b'_' && after_digit {
            after_digit = false;
        } else {
            return Err(Fail::Invalid);
        }
    }
    if !after_digit {
        return Err(Fail::Invalid);
    }
    Ok(if neg { -v } else { v })
}

#[inline]
fn i64_of(v: i128) -> R<i64> {
    i64::try_from(v).map_err(|_| Fail::Fallback("an integer beyond 64 bits"))
}

#[inline]
fn int64(s: &str) -> R<i64> {
    // the common case: a short run of ASCII digits
    let b = s.as_bytes();
    if !b.is_empty() && b.len() <= 18 && b.iter().all(|c| c.is_ascii_digit()) {
        let mut v: i64 = 0;
        for &c in b {
            v = v * 10 + (c - b'0') as i64;
        }
        return Ok(v);
    }
    i64_of(py_int(s)?)
}

#[inline]
fn sector_of(s: &str) -> R<i64> {
    let b = s.as_bytes();
    if !b.is_empty() && b.len() <= 18 && b.iter().all(|c| c.is_ascii_digit()) {
        return int64(s);
    }
    let v = py_int(s)?;
    if v == NO_SECTOR {
        return Ok(0); // a flush's completion, see perf_block.py
    }
    i64_of(v)
}

#[inline]
fn ovf<T>(v: Option<T>) -> R<T> {
    v.ok_or(Fail::Fallback("an integer beyond 64 bits"))
}

/// int(frac) if len(frac) == 9 else int(frac.ljust(9, "0")[:9])
fn frac9(f: &str) -> R<i128> {
    if !f.is_ascii() {
        return Err(Fail::Fallback("a time with non-ASCII characters"));
    }
    if f.len() == 9 {
        return py_int(f);
    }
    let mut buf = [b'0'; 9];
    let n = f.len().min(9);
    buf[..n].copy_from_slice(&f.as_bytes()[..n]);
    py_int(std::str::from_utf8(&buf).unwrap())
}

fn time_ns(secs: &str, frac: &str) -> R<i64> {
    let (sb, fb) = (secs.as_bytes(), frac.as_bytes());
    if fb.len() == 9
        && !sb.is_empty()
        && sb.len() <= 9
        && sb.iter().chain(fb).all(|c| c.is_ascii_digit())
    {
        let mut v: i64 = 0;
        for &c in sb.iter().chain(fb) {
            v = v * 10 + (c - b'0') as i64;
        }
        return Ok(v);
    }
    let s = py_int(secs)?;
    let f = frac9(frac)?;
    i64_of(ovf(s
        .checked_mul(1_000_000_000)
        .and_then(|v| v.checked_add(f)))?)
}

/// The first ": " of s.
#[inline]
fn find_colon_space(s: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b':', &s[from..]) {
        let i = from + i;
        if s.get(i + 1) == Some(&b' ') {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// The first " () " of s.
#[inline]
fn find_empty_cmd(s: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'(', &s[from..]) {
        let i = from + i;
        if i > 0 && s[i - 1] == b' ' && s.get(i + 1) == Some(&b')') && s.get(i + 2) == Some(&b' ') {
            return Some(i - 1);
        }
        from = i + 1;
    }
    None
}

#[inline]
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[inline]
fn digits(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
}

fn parse_digits(b: &[u8]) -> R<i128> {
    py_int(std::str::from_utf8(b).unwrap())
}

/// `_LOST.search(s)` of perf_block.py on ASCII text:
/// PERF_RECORD_LOST(?:_SAMPLES)?\b\D*?(\d+)|\bLOST (\d+) events?!
fn lost_search(s: &str) -> R<Option<i128>> {
    let b = s.as_bytes();
    if memmem::find(b, b"LOST").is_none() {
        return Ok(None);
    }
    if !s.is_ascii() {
        return Err(Fail::Fallback("a LOST line with non-ASCII characters"));
    }
    let tail1 = |q: usize| -> R<Option<i128>> {
        if q < b.len() && is_word(b[q]) {
            return Ok(None); // no \b
        }
        match b[q..].iter().position(|c| c.is_ascii_digit()) {
            None => Ok(None),
            Some(o) => {
                let st = q + o;
                Ok(Some(parse_digits(&b[st..st + digits(b, st)])?))
            }
        }
    };
    for p in 0..b.len() {
        if b[p..].starts_with(b"PERF_RECORD_LOST") {
            let q = p + 16;
            if b[q..].starts_with(b"_SAMPLES") {
                if let Some(n) = tail1(q + 8)? {
                    return Ok(Some(n));
                }
            }
            if let Some(n) = tail1(q)? {
                return Ok(Some(n));
            }
        }
        if b[p..].starts_with(b"LOST ") && (p == 0 || !is_word(b[p - 1])) {
            let q = p + 5;
            let d = digits(b, q);
            if d > 0 {
                let r = &b[q + d..];
                if r.starts_with(b" events!") || r.starts_with(b" event!") {
                    return Ok(Some(parse_digits(&b[q..q + d])?));
                }
            }
        }
    }
    Ok(None)
}

/// `_SAMPLE.search(s)` on the ASCII characters: \s\d+(?:/\d+)?\s+\[\d+\]\s+\d+\.\d+:
/// (non-ASCII characters match neither \s nor \d here; Python's can, so a miss on non-ASCII
/// text is not an answer).
fn sample_search(b: &[u8]) -> bool {
    let ws = |i: usize| b[i..].iter().take_while(|&&c| ascii_ws(c)).count();
    let at = |i: usize, c: u8| i < b.len() && b[i] == c;
    for p in 0..b.len() {
        if !ascii_ws(b[p]) {
            continue;
        }
        let mut q = p + 1;
        let d = digits(b, q);
        if d == 0 {
            continue;
        }
        q += d;
        if at(q, b'/') {
            let d2 = digits(b, q + 1);
            if d2 > 0 {
                q += 1 + d2;
            }
        }
        let w = if q < b.len() { ws(q) } else { 0 };
        if w == 0 {
            continue;
        }
        q += w;
        if !at(q, b'[') {
            continue;
        }
        q += 1;
        let d = digits(b, q);
        if d == 0 {
            continue;
        }
        q += d;
        if !at(q, b']') {
            continue;
        }
        q += 1;
        let w = if q < b.len() { ws(q) } else { 0 };
        if w == 0 {
            continue;
        }
        q += w;
        let d = digits(b, q);
        if d == 0 {
            continue;
        }
        q += d;
        if !at(q, b'.') {
            continue;
        }
        q += 1;
        let d = digits(b, q);
        if d == 0 {
            continue;
        }
        q += d;
        if at(q, b':') {
            return true;
        }
    }
    false
}

// --- Events -------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Rq,
    Rqc,
    Bio,
    Split,
    Nothing,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Insert,
    Issue,
    RqMerge,
    Complete,
    Requeue,
    Queue,
    Backmerge,
    Frontmerge,
    Getrq,
    Remap,
    Plug,
    Unplug,
    Split,
}

const ACTION_NAMES: [&str; 13] = [
    "insert",
    "issue",
    "rq_merge",
    "complete",
    "requeue",
    "queue",
    "backmerge",
    "frontmerge",
    "getrq",
    "remap",
    "plug",
    "unplug",
    "split",
];

/// _EVENTS of perf_block.py: (number of the name, (action, shape) or None for the "other" ones,
/// counted but not used); None for names it does not list.
fn spec(name: &str) -> Option<(usize, Option<(Action, Shape)>)> {
    Some(match name {
        "block_rq_error" => (14, None),
        "block_io_start" => (15, None),
        "block_io_done" => (16, None),
        "block_bio_bounce" => (17, None),
        "block_bio_complete" => (18, None),
        _ => {
            let known = spec_used(name)?;
            (known.0, Some(known.1))
        }
    })
}

fn spec_used(name: &str) -> Option<(usize, (Action, Shape))> {
    Some(match name {
        "block_rq_insert" => (0, (Action::Insert, Shape::Rq)),
        "block_rq_issue" => (1, (Action::Issue, Shape::Rq)),
        "block_rq_merge" => (2, (Action::RqMerge, Shape::Rq)),
        "block_rq_complete" => (3, (Action::Complete, Shape::Rqc)),
        "block_rq_requeue" => (4, (Action::Requeue, Shape::Rqc)),
        "block_bio_queue" => (5, (Action::Queue, Shape::Bio)),
        "block_bio_backmerge" => (6, (Action::Backmerge, Shape::Bio)),
        "block_bio_frontmerge" => (7, (Action::Frontmerge, Shape::Bio)),
        "block_getrq" => (8, (Action::Getrq, Shape::Bio)),
        "block_bio_remap" => (9, (Action::Remap, Shape::Bio)),
        "block_rq_remap" => (10, (Action::Remap, Shape::Bio)),
        "block_plug" => (11, (Action::Plug, Shape::Nothing)),
        "block_unplug" => (12, (Action::Unplug, Shape::Nothing)),
        "block_split" => (13, (Action::Split, Shape::Split)),
        _ => return None,
    })
}

/// BlockEvent of block_events.py, borrowing the line.
struct Ev<'a> {
    t: i64,
    cpu: i64,
    pid: i64,
    comm: &'a str,
    action: Action,
    dev: &'a str,
    rwbs: &'a str,
    sector: Option<i64>,
    nr: Option<i64>,
    bytes: Option<i64>,
    error: Option<i64>,
}

/// Why the pass stopped before the end.
pub enum Stop {
    /// A line the Python reader rejects: its message is built by the wrapper from `kind`,
    /// `name` (the tracepoint) and `text` (the part of the line the message quotes).
    Format {
        line: u64,
        kind: &'static str,
        name: String,
        text: String,
    },
    /// Input whose Python reading is not reimplemented here: run the Python reader instead.
    Fallback(String),
    /// Writing the CSV failed.
    Io(io::Error),
}

/// Counts in order of first increment (a Python Counter's key order).
#[derive(Default)]
pub struct Counted {
    pub items: Vec<(String, u64)>,
    index: FxHashMap<Box<str>, usize>,
    last: usize,
    known: [Option<usize>; 20],
}

impl Counted {
    /// add(key, 1) for a key known by a small number (`k` < 20) as well as by name.
    #[inline]
    fn add_known(&mut self, k: usize, key: &str) {
        match self.known[k] {
            Some(i) => self.items[i].1 += 1,
            None => {
                self.add(key, 1);
                self.known[k] = Some(self.last);
            }
        }
    }

    #[inline]
    fn add(&mut self, key: &str, n: u64) {
        if let Some(item) = self.items.get_mut(self.last) {
            if item.0 == key {
                item.1 += n;
                return;
            }
        }
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                self.items.push((key.to_string(), 0));
                self.index.insert(key.into(), self.items.len() - 1);
                self.items.len() - 1
            }
        };
        self.items[i].1 += n;
        self.last = i;
    }
}

/// PerfBlockReader's counters.
#[derive(Default)]
pub struct ReaderCounts {
    pub tracepoints: Counted,
    pub foreign: u64,
    pub passthrough: u64,
    pub usec_times: u64,
    pub lost: i128,
    pub lines: u64,
}

struct Parser {
    c: ReaderCounts,
    block: memmem::Finder<'static>,
}

impl Parser {
    fn new() -> Self {
        Parser {
            c: ReaderCounts::default(),
            block: memmem::Finder::new(b" block:"),
        }
    }

    /// One line (with its "\n" if it had one) -> an event, nothing, or the reason to stop.
    fn line<'a, const A: bool>(
        &mut self,
        lineno: u64,
        line: &'a str,
    ) -> Result<Option<Ev<'a>>, Stop> {
        let Some(i) = self.block.find(line.as_bytes()) else {
            let s = strip(line);
            if s.is_empty() || s.starts_with('#') {
                return Ok(None);
            }
            match lost_search(s) {
                Ok(Some(n)) => {
                    self.c.lost += n;
                    if self.c.lost > i64::MAX as i128 {
                        return Err(Stop::Fallback("lost events beyond 64 bits".into()));
                    }
                    return Ok(None);
                }
                Ok(None) => {}
                Err(Fail::Fallback(why)) => return Err(Stop::Fallback(why.into())),
                // digits only: int() reads them (never reached)
                Err(Fail::Invalid) => return Err(Stop::Fallback("a LOST count".into())),
            }
            if sample_search(s.as_bytes()) {
                self.c.foreign += 1;
                return Ok(None);
            }
            if !s.is_ascii() {
                return Err(Stop::Fallback(
                    "a line with non-ASCII characters that is not a block sample".into(),
                ));
            }
            return Err(Stop::Format {
                line: lineno,
                kind: "line",
                name: String::new(),
                text: s.to_string(),
            });
        };
        let head = match rsplit4::<A>(&line[..i]) {
            Some(h) if h[3].ends_with(':') && h[2].starts_with('[') => h,
            _ => {
                return Err(Stop::Format {
                    line: lineno,
                    kind: "header",
                    name: String::new(),
                    text: line[..i].to_string(),
                })
            }
        };
        let tail = &line[i + 7..];
        let j = find_colon_space(tail.as_bytes());
        let name = match j {
            Some(j) => &tail[..j],
            None => rstrip(tail).trim_end_matches(':'),
        };
        let (action, shape) = match spec(name) {
            Some((k, used)) => {
                self.c.tracepoints.add_known(k, name);
                match used {
                    Some(s) => s,
                    None => return Ok(None),
                }
            }
            None => {
                self.c.tracepoints.add(name, 1);
                return Ok(None);
            }
        };
        let fail = |f: Fail| -> Stop {
            match f {
                Fail::Fallback(why) => Stop::Fallback(why.into()),
                Fail::Invalid => Stop::Format {
                    line: lineno,
                    kind: "payload",
                    name: name.to_string(),
                    text: match j {
                        Some(j) => tail[j + 2..].to_string(),
                        None => tail[first_char_len(tail)..].to_string(), // tail[j + 2:] with j = -1
                    },
                },
            }
        };
        // Fast path, nearly every line: a request event with an empty cmd "()".
        if let (Shape::Rq | Shape::Rqc, Some(j)) = (shape, j) {
            if let Some(k0) = find_empty_cmd(&tail.as_bytes()[j..]) {
                let k = j + k0;
                let pre = Split::of::<A>(slice(tail, j + 2, k));
                let post = Split::of::<A>(&tail[k + 4..]);
                if post.n >= 4 && post.tok[1] == "+" {
                    return match self.fast::<A>(&head, action, shape, &pre, &post) {
                        Ok(ev) => Ok(Some(ev)),
                        Err(f) => Err(fail(f)),
                    };
                }
            }
        }
        let p = match j {
            Some(j) => tail[j + 2..].trim_end_matches('\n'),
            None => "",
        };
        self.slow(&head, action, shape, p).map_err(fail)
    }

    fn fast<'a, const A: bool>(
        &mut self,
        head: &[&'a str; 4],
        action: Action,
        shape: Shape,
        pre: &Split<'a>,
        post: &Split<'a>,
    ) -> R<Ev<'a>> {
        let ts = head[3];
        let body = &ts[..ts.len() - 1];
        let (secs, frac) = match ts.find('.') {
            Some(d) => (&ts[..d], &ts[d + 1..ts.len() - 1]),
            None => (body, body), // ts[:-1] and ts[0:-1]
        };
        let t = time_ns(secs, frac)?;
        if char_len(frac) == 6 {
            self.c.usec_times += 1;
        }
        let ptid = head[1];
        let nr = int64(post.tok[2])?;
        let sector = sector_of(post.tok[0])?;
        let (bytes, error) = if shape == Shape::Rq {
            if pre.n < 3 {
                return Err(Fail::Invalid);
            }
            (int64(pre.tok[2])?, None)
        } else {
            (ovf(nr.checked_mul(512))?, Some(int64(inner(post.last))?))
        };
        let cpu = int64(inner(head[2]))?;
        let pid = int64(&ptid[ptid.find('/').map_or(0, |x| x + 1)..])?;
        if pre.n < 2 {
            return Err(Fail::Invalid);
        }
        Ok(Ev {
            t,
            cpu,
            pid,
            comm: lstrip::<A>(head[0]),
            action,
            dev: pre.tok[0],
            rwbs: pre.tok[1],
            sector: Some(sector),
            nr: Some(nr),
            bytes: Some(bytes),
            error,
        })
    }

    /// PerfBlockReader._event
    fn slow<'a>(
        &mut self,
        head: &[&'a str; 4],
        action: Action,
        shape: Shape,
        p: &'a str,
    ) -> R<Option<Ev<'a>>> {
        let ptid = head[1];
        let pid = int64(&ptid[ptid.rfind('/').map_or(0, |x| x + 1)..])?;
        let cpu = int64(inner(head[2]))?;
        let ts = head[3];
        let body = &ts[..ts.len() - 1];
        let (secs, frac) = match body.find('.') {
            Some(d) => (&body[..d], &body[d + 1..]),
            None => (body, ""),
        };
        if char_len(frac) == 6 {
            self.c.usec_times += 1;
        }
        let t = time_ns(secs, frac)?;
        let mut ev = Ev {
            t,
            cpu,
            pid,
            comm: lstrip::<false>(head[0]),
            action,
            dev: "",
            rwbs: "N",
            sector: None,
            nr: None,
            bytes: None,
            error: None,
        };
        match shape {
            Shape::Rq | Shape::Rqc => {
                let k1 = memmem::find(p.as_bytes(), b" (");
                let k2 = k1.and_then(|k1| memmem::find(&p.as_bytes()[k1..], b") ").map(|x| x + k1));
                let pre = Split::of::<false>(match k1 {
                    Some(k1) => &p[..k1],
                    None => &p[..p.len() - last_char_len(p)],
                });
                if pre.n < 2 {
                    return Err(Fail::Invalid);
                }
                ev.dev = pre.tok[0];
                ev.rwbs = pre.tok[1];
                if shape == Shape::Rq {
                    if pre.n < 3 {
                        return Err(Fail::Invalid);
                    }
                    ev.bytes = Some(int64(pre.tok[2])?);
                }
                let b = memmem::rfind(p.as_bytes(), b" [");
                let from_one = first_char_len(p); // index 1, for the slices that start at -1 + 2
                let post = Split::of::<false>(slice(
                    p,
                    k2.map_or(from_one, |k2| k2 + 2),
                    b.unwrap_or(p.len() - last_char_len(p)),
                ));
                let rb = memchr::memrchr(b']', p.as_bytes()).ok_or(Fail::Invalid)?; // rindex
                let last = slice(p, b.map_or(from_one, |b| b + 2), rb);
                let cmd = matches!((k1, k2), (Some(k1), Some(k2)) if k2 > k1 + 2);
                if cmd || post.n < 3 || post.tok[1] != "+" {
                    // a command in the parentheses: a passthrough request
                    self.c.passthrough += 1;
                    return Ok(None);
                }
                let sector = sector_of(post.tok[0])?;
                let nr = int64(post.tok[2])?;
                ev.sector = Some(sector);
                ev.nr = Some(nr);
                if shape == Shape::Rqc {
                    ev.error = Some(int64(last)?);
                }
            }
            Shape::Bio => {
                let f = Split::of::<false>(p);
                if f.n < 3 {
                    return Err(Fail::Invalid);
                }
                ev.dev = f.tok[0];
                ev.rwbs = f.tok[1];
                let sector = int64(f.tok[2])?;
                if f.n < 5 {
                    return Err(Fail::Invalid);
                }
                let nr = int64(f.tok[4])?;
                ev.sector = Some(sector);
                ev.nr = Some(nr);
                ev.bytes = Some(ovf(nr.checked_mul(512))?);
            }
            Shape::Split => {
                let f = Split::of::<false>(p);
                if f.n < 3 {
                    return Err(Fail::Invalid);
                }
                ev.dev = f.tok[0];
                ev.rwbs = f.tok[1];
                ev.sector = Some(int64(f.tok[2])?);
            }
            Shape::Nothing => {}
        }
        if ev.bytes.is_none() {
            if let Some(nr) = ev.nr {
                ev.bytes = Some(ovf(nr.checked_mul(512))?);
            }
        }
        Ok(Some(ev))
    }
}

// --- Matching -------------------------------------------------------------------------------

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
    fn new() -> Self {
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
    fn new() -> Self {
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

struct Matcher<W: Write> {
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
    fn new(t0: Option<i64>, sink: W) -> Self {
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
    fn feed(&mut self, ev: &Ev) -> Result<(), Stop> {
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
    fn finish(mut self) -> Result<MatchCounts, Stop> {
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

fn stop(f: Fail) -> Stop {
    match f {
        Fail::Fallback(why) => Stop::Fallback(why.into()),
        Fail::Invalid => Stop::Fallback("invalid value in matching".into()),
    }
}

fn io_stop(e: io::Error) -> Stop {
    Stop::Io(e)
}

// --- Reading ------------------------------------------------------------------------------

/// Reads (and decompresses) on its own thread; sends blocks that end at a line end (or at the
/// end of the input), so that no "\r\n" is cut in two. Emptied blocks come back on `back`.
fn reader(src: Source, chunk: usize, tx: SyncSender<io::Result<Vec<u8>>>, back: Receiver<Vec<u8>>) {
    let mut r = match stream::open(src) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Err(e));
            return;
        }
    };
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let mut buf = back
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(chunk + carry.len()));
        buf.clear();
        buf.extend_from_slice(&carry);
        let n = match (&mut r).take(chunk as u64).read_to_end(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                // the complete lines before the error first, as Python reads them
                let cut = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
                buf.truncate(cut);
                if !buf.is_empty() && tx.send(Ok(buf)).is_err() {
                    return;
                }
                let _ = tx.send(Err(e));
                return;
            }
        };
        if n < chunk {
            // the end of the input
            if !buf.is_empty() {
                let _ = tx.send(Ok(buf));
            }
            return;
        }
        // cut after the last "\n"; with none (the carry holds none either), after the last lone
        // "\r" (one followed by something else than "\n"); else keep reading: one long line
        let cut = match memchr::memrchr(b'\n', &buf) {
            Some(i) => Some(i + 1),
            None => memchr::memrchr(b'\r', &buf[..buf.len() - 1]).map(|i| i + 1),
        };
        match cut {
            Some(c) => {
                carry.clear();
                carry.extend_from_slice(&buf[c..]);
                buf.truncate(c);
                if tx.send(Ok(buf)).is_err() {
                    return;
                }
            }
            None => carry = buf,
        }
    }
}

/// What one pass gave.
pub struct Summary {
    pub bytes: u64,
    pub reader: ReaderCounts,
    pub matched: MatchCounts,
}

pub enum Outcome {
    Done(Box<Summary>),
    Stopped(Stop),
}

fn lines_of(
    rx: &Receiver<io::Result<Vec<u8>>>,
    back: &Sender<Vec<u8>>,
    mut f: impl FnMut(&str, bool) -> Result<(), Stop>,
) -> Result<u64, Stop> {
    let mut bytes = 0u64;
    let mut scratch: Vec<u8> = Vec::new();
    for block in rx.iter() {
        let block = block.map_err(|e| Stop::Fallback(format!("read error: {e}")))?;
        bytes += block.len() as u64;
        let n = block.len();
        let mut pos = 0;
        while pos < n {
            let (raw, next, cr) = match memchr::memchr2(b'\n', b'\r', &block[pos..]) {
                Some(off) => {
                    let end = pos + off;
                    if block[end] == b'\n' {
                        (&block[pos..=end], end + 1, false)
                    } else if end + 1 < n && block[end + 1] == b'\n' {
                        (&block[pos..end], end + 2, true)
                    } else {
                        (&block[pos..end], end + 1, true)
                    }
                }
                None => (&block[pos..], n, false),
            };
            pos = next;
            let bytes_of_line: &[u8] = if cr {
                // universal newlines: "\r\n" and "\r" read as "\n"
                scratch.clear();
                scratch.extend_from_slice(raw);
                scratch.push(b'\n');
                &scratch
            } else {
                raw
            };
            if bytes_of_line.is_ascii() {
                // SAFETY: ASCII is UTF-8
                f(
                    unsafe { std::str::from_utf8_unchecked(bytes_of_line) },
                    true,
                )?
            } else {
                // Python decodes with errors="replace": the same U+FFFD per maximal invalid subpart
                f(&String::from_utf8_lossy(bytes_of_line), false)?
            }
        }
        let _ = back.send(block);
    }
    Ok(bytes)
}

/// The whole pass: `src` -> rows in `csv_path`, counters in the summary.
pub fn perf_block_csv(
    src: Source,
    csv_path: &str,
    t0: Option<i64>,
    chunk: usize,
) -> io::Result<Outcome> {
    let file = File::create(csv_path)?;
    let (tx, rx) = sync_channel(QUEUE_DEPTH);
    let (back_tx, back_rx) = channel();
    let chunk = chunk.max(1);
    let handle = thread::spawn(move || reader(src, chunk, tx, back_rx));
    let mut parser = Parser::new();
    let mut matcher = Matcher::new(t0, file);
    let mut lineno = 0u64;
    let res = lines_of(&rx, &back_tx, |line, ascii| {
        lineno += 1;
        let ev = if ascii {
            parser.line::<true>(lineno, line)?
        } else {
            parser.line::<false>(lineno, line)?
        };
        if let Some(ev) = ev {
            matcher.feed(&ev)?;
        }
        Ok(())
    });
    drop(rx); // the reader stops at its next send
    let _ = handle.join();
    let bytes = match res {
        Ok(b) => b,
        Err(Stop::Io(e)) => return Err(e),
        Err(stop) => return Ok(Outcome::Stopped(stop)),
    };
    parser.c.lines = lineno;
    let matched = match matcher.finish() {
        Ok(m) => m,
        Err(Stop::Io(e)) => return Err(e),
        Err(stop) => return Ok(Outcome::Stopped(stop)),
    };
    Ok(Outcome::Done(Box::new(Summary {
        bytes,
        reader: parser.c,
        matched,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_python() {
        assert_eq!(rsplit4::<false>("  a b  c d"), Some(["  a", "b", "c", "d"]));
        assert_eq!(
            rsplit4::<false>("  opt cgu.0  9930 [001]  2115.938050123:  "),
            Some(["  opt cgu.0", "9930", "[001]", "2115.938050123:"])
        );
        assert_eq!(rsplit4::<false>("  b c d"), None);
        let s = Split::of::<false>(" 1 + 8 [0]\n");
        assert_eq!((s.n, s.tok[0], s.tok[1], s.last), (4, "1", "+", "[0]"));
        assert_eq!(inner("[001]"), "001");
        assert_eq!(inner("["), "");
        assert_eq!(inner("[1é"), "1");
    }

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

    #[test]
    fn ints_like_python() {
        assert_eq!(py_int(" -5 ").ok(), Some(-5));
        assert_eq!(py_int("0_7").ok(), Some(7));
        assert!(matches!(py_int("5_"), Err(Fail::Invalid)));
        assert!(matches!(py_int("_5"), Err(Fail::Invalid)));
        assert!(matches!(py_int("\u{1c}5"), Err(Fail::Invalid)));
        assert!(matches!(py_int("٣"), Err(Fail::Fallback(_))));
        assert_eq!(sector_of("18446744073709551615").ok(), Some(0));
    }

    #[test]
    fn lost_and_sample_like_the_regexes() {
        assert_eq!(
            lost_search("perf 0 [001] 1.2: PERF_RECORD_LOST lost 30")
                .ok()
                .flatten(),
            Some(30)
        );
        assert_eq!(lost_search("LOST 12 events!").ok().flatten(), Some(12));
        assert_eq!(lost_search("xLOST 12 events!").ok().flatten(), None);
        assert_eq!(
            lost_search("PERF_RECORD_LOST_SAMPLES: 7").ok().flatten(),
            Some(7)
        );
        assert_eq!(lost_search("PERF_RECORD_LOSTX 7").ok().flatten(), None);
        assert!(sample_search(
            b"fio 400 [001] 100.000001100: sched:sched_switch:"
        ));
        assert!(sample_search(b"fio 1/400 [001] 100.1:"));
        assert!(!sample_search(b"not perf script at all"));
    }
}

#[cfg(test)]
mod bench {
    /// `IOLENS_BLOCK_BENCH=FILE cargo test --release --lib block::bench -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn pass_rate() {
        let Ok(path) = std::env::var("IOLENS_BLOCK_BENCH") else {
            return;
        };
        // CPU time of this thread (the parsing one), in clock ticks of 10 ms
        let cpu = || -> u64 {
            let st = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
            let f: Vec<&str> = st.rsplit(')').next().unwrap().split_whitespace().collect();
            f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
        };
        for _ in 0..5 {
            let c = cpu();
            let t = std::time::Instant::now();
            let out = super::perf_block_csv(
                super::Source::Path(path.clone()),
                "/tmp/iolens-block-bench.csv",
                None,
                super::DEFAULT_BLOCK_CHUNK,
            )
            .unwrap();
            let super::Outcome::Done(s) = out else {
                panic!("stopped")
            };
            println!(
                "{} lines, {} rows in {:?}, parsing thread CPU {} ms",
                s.reader.lines,
                s.matched.rows,
                t.elapsed(),
                (cpu() - c) * 10
            );
        }
    }
}
