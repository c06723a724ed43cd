//! Reading (gzip detected) on a second thread, lines cut as Python's universal newlines cut
//! them, and the one pass: read, parse, match, write.

use std::fs::File;
use std::io::{self, Read};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread;

use super::matcher::{MatchCounts, Matcher};
use super::parser::{Parser, ReaderCounts, Stop};
use crate::stream::{self, Source};

pub const DEFAULT_BLOCK_CHUNK: usize = 1 << 20;
const QUEUE_DEPTH: usize = 4;

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

/// How a pass ended: its result, or where it stopped (the caller's to answer: a line the
/// reference rejects, or the reference to run instead). Shared by every pass over perf script
/// text read with `each_line` (this one, offcpu.rs).
pub enum Outcome<T> {
    Done(T),
    Stopped(Stop),
}

/// A pass's result as its outcome: a failed write (`Stop::Io`) is the error, any other stop the
/// outcome.
pub(crate) fn outcome<T>(res: Result<T, Stop>) -> io::Result<Outcome<T>> {
    match res {
        Ok(v) => Ok(Outcome::Done(v)),
        Err(Stop::Io(e)) => Err(e),
        Err(stop) => Ok(Outcome::Stopped(stop)),
    }
}

/// Reads `src` (gzip detected) on a second thread in blocks of about `chunk` bytes and calls
/// `f` on each line as `lines_of` does; the reader thread is joined before this returns. The
/// bytes read, or the first stop (`f`'s, or a read error as `Stop::Fallback`).
pub(crate) fn each_line(
    src: Source,
    chunk: usize,
    f: impl FnMut(&str, bool) -> Result<(), Stop>,
) -> Result<u64, Stop> {
    let (tx, rx) = sync_channel(QUEUE_DEPTH);
    let (back_tx, back_rx) = channel();
    let chunk = chunk.max(1);
    let handle = thread::spawn(move || reader(src, chunk, tx, back_rx));
    let res = lines_of(&rx, &back_tx, f);
    drop(rx); // the reader stops at its next send
    let _ = handle.join();
    res
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
) -> io::Result<Outcome<Box<Summary>>> {
    let file = File::create(csv_path)?;
    outcome(pass(src, file, t0, chunk))
}

fn pass(src: Source, file: File, t0: Option<i64>, chunk: usize) -> Result<Box<Summary>, Stop> {
    let mut parser = Parser::new();
    let mut matcher = Matcher::new(t0, file);
    let mut lineno = 0u64;
    let bytes = each_line(src, chunk, |line, ascii| {
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
    })?;
    parser.c.lines = lineno;
    let matched = matcher.finish()?;
    Ok(Box::new(Summary {
        bytes,
        reader: parser.c,
        matched,
    }))
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
