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
//!
//! - `text.rs`: Python's view of the text (whitespace, split, strip, character slices, `int()`,
//!   the reference reader's regexes)
//! - `parser.rs`: a line -> an event, with the reader's counters (`Stop`, `ReaderCounts`)
//! - `matcher.rs`: events -> one CSV row per I/O, with the matcher's counters (`MatchCounts`)
//! - `reader.rs`: the read thread, lines cut as Python cuts them (`each_line`, also offcpu.rs's),
//!   how a pass ends (`Outcome`, `outcome`), and the pass (`perf_block_csv`)

mod matcher;
mod parser;
mod reader;
mod text;

pub use matcher::{lat_bin, MatchCounts};
pub use parser::{Counted, ReaderCounts, Stop};
pub(crate) use reader::{each_line, outcome};
pub use reader::{perf_block_csv, Outcome, Summary, DEFAULT_BLOCK_CHUNK};
