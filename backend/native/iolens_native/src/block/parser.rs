//! `perf script` lines of the block tracepoints -> events, with the reader's counters, as
//! `PerfBlockReader.events` reads them (its fast path and its slow path).

use std::io;

use memchr::memmem;

use super::text::{
    char_len, find_colon_space, find_empty_cmd, first_char_len, inner, int64, last_char_len,
    lost_search, lstrip, ovf, rsplit4, rstrip, sample_search, sector_of, slice, strip, time_ns,
    Fail, Split, R,
};
use crate::fxhash::FxHashMap;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Rq,
    Rqc,
    Bio,
    Split,
    Nothing,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
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

pub(super) const ACTION_NAMES: [&str; 13] = [
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
pub(super) struct Ev<'a> {
    pub(super) t: i64,
    pub(super) cpu: i64,
    pub(super) pid: i64,
    pub(super) comm: &'a str,
    pub(super) action: Action,
    pub(super) dev: &'a str,
    pub(super) rwbs: &'a str,
    pub(super) sector: Option<i64>,
    pub(super) nr: Option<i64>,
    pub(super) bytes: Option<i64>,
    pub(super) error: Option<i64>,
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

pub(super) struct Parser {
    pub(super) c: ReaderCounts,
    block: memmem::Finder<'static>,
}

impl Parser {
    pub(super) fn new() -> Self {
        Parser {
            c: ReaderCounts::default(),
            block: memmem::Finder::new(b" block:"),
        }
    }

    /// One line (with its "\n" if it had one) -> an event, nothing, or the reason to stop.
    pub(super) fn line<'a, const A: bool>(
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

pub(super) fn stop(f: Fail) -> Stop {
    match f {
        Fail::Fallback(why) => Stop::Fallback(why.into()),
        Fail::Invalid => Stop::Fallback("invalid value in matching".into()),
    }
}

pub(super) fn io_stop(e: io::Error) -> Stop {
    Stop::Io(e)
}
