//! The `perf script` state machine, rule for rule a port of inferno 0.12.8
//! (crates.io `inferno` 0.12.8: src/collapse/perf.rs, src/collapse/common.rs,
//! src/collapse/matcher.rs). The pure-Python twin is backend/iolens/formats/perf_script.py;
//! both are tested against inferno's own output on the corpus.
//!
//! Differences from inferno are in representation only: frames are written into one byte buffer
//! instead of a String each, and the folded key is built once per sample. Every rule, including
//! the odd ones, is kept (see the comments that quote inferno).

use crate::bytes;
use crate::fxhash::FxHashMap;

/// `inferno-collapse-perf` options (the binary's flags). Every default is `false` / empty.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--pid`: root frame `comm-PID`.
    pub include_pid: bool,
    /// `--tid`: root frame `comm-PID/TID` (implies `--pid`).
    pub include_tid: bool,
    /// `--kernel` (or `--all`): `_[k]` after kernel frames.
    pub annotate_kernel: bool,
    /// `--jit` (or `--all`): `_[j]` after JIT frames (/tmp/perf-PID.map, jitted-*.so).
    pub annotate_jit: bool,
    /// `--addrs`: `[module <addr>]` instead of `[module]` for unknown symbols.
    pub include_addrs: bool,
    /// `--skip-after FUNC`: drop the callers of FUNC (and the comm frame).
    pub skip_after: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StackFilter {
    Keep,
    Skip,
    SkipRemaining,
}

/// What an event line says about its sample, beyond what folding uses (tables mode).
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub ts_ns: Option<i64>,
    pub cpu: Option<i64>,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    pub comm: String,
    pub event: Option<String>,
}

/// One sample's folded stack: the root frame (comm, unless --skip-after dropped it) and the
/// frames. Inferno's text is the frames joined with ';', root first (`join_into`).
pub struct Stack<'a> {
    pname: Option<&'a [u8]>,
    buf: &'a [u8],
    /// reversed: the last range is the frame after the root
    frames: &'a [(usize, usize)],
}

impl<'a> Stack<'a> {
    /// Calls f with each frame, root first.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(&'a [u8])) {
        if let Some(p) = self.pname {
            f(p);
        }
        for &(s, e) in self.frames.iter().rev() {
            f(&self.buf[s..e]);
        }
    }

    /// inferno's key: "comm;root;...;leaf".
    pub fn join_into(&self, out: &mut Vec<u8>) {
        out.clear();
        self.for_each(|f| {
            out.extend_from_slice(f);
            out.push(b';');
        });
        out.pop();
    }
}

/// Where finished samples go.
pub trait Emit {
    /// Whether the folder must keep each sample's metadata (tables) or only fold (counts).
    const META: bool;
    /// One sample with its stack and weight (the period, or 1).
    fn stack(&mut self, stack: &Stack<'_>, weight: u64, meta: Option<&Meta>);
    /// One sample (tables mode only) that produced no frame.
    fn stackless(&mut self, _weight: u64, _meta: &Meta) {}
}

/// Folded stack text -> summed weight.
pub type FoldMap = FxHashMap<Box<[u8]>, u64>;

/// Fold mode keyed by the folded text (simple; see compact.rs for the one used at scale).
#[derive(Default)]
pub struct TextFold {
    pub map: FoldMap,
    key: Vec<u8>,
}

impl Emit for TextFold {
    const META: bool = false;
    #[inline]
    fn stack(&mut self, stack: &Stack<'_>, weight: u64, _meta: Option<&Meta>) {
        stack.join_into(&mut self.key);
        if let Some(v) = self.map.get_mut(&self.key[..]) {
            *v += weight;
        } else {
            self.map.insert(self.key[..].into(), weight);
        }
    }
}

pub struct Folder<'o> {
    opt: &'o Options,
    /// The event to keep. `None`: set to the first event seen (inferno's default). Ignored when
    /// `keep_all` (tables mode keeps every event and records its name).
    pub event_filter: Option<String>,
    keep_all: bool,
    in_event: bool,
    stack_filter: StackFilter,
    /// Root frame: comm with spaces as '_', plus -PID[/TID].
    pname: String,
    period: Option<u64>,
    /// Frame text of the current sample.
    buf: Vec<u8>,
    /// Frame ranges in `buf`: lines in input order (leaf first), each line's frames reversed,
    /// so that reading the whole list backwards gives root-first order (inferno's push_front).
    frames: Vec<(usize, usize)>,
    /// Tables mode: whether `meta` holds a sample whose event line was read and which is not
    /// emitted yet. `meta` is filled again for each sample (its strings keep their buffers: no
    /// allocation per sample).
    pending: bool,
    meta: Meta,
    /// Lines that were neither an event line, a stack line, a comment nor blank.
    pub weird_lines: u64,
}

impl<'o> Folder<'o> {
    pub fn new(opt: &'o Options, event_filter: Option<String>, keep_all: bool) -> Self {
        Folder {
            opt,
            event_filter,
            keep_all,
            in_event: false,
            stack_filter: StackFilter::Keep,
            pname: String::new(),
            period: None,
            buf: Vec::with_capacity(4096),
            frames: Vec::with_capacity(128),
            pending: false,
            meta: Meta::default(),
            weird_lines: 0,
        }
    }

    /// Feeds whole lines (the last one may lack its '\n' only at the end of the input).
    /// Invalid UTF-8 is replaced as inferno does (String::from_utf8_lossy per line).
    pub fn feed_bytes<E: Emit>(&mut self, data: &[u8], emit: &mut E) {
        match std::str::from_utf8(data) {
            Ok(text) => self.feed(text, emit),
            Err(_) => {
                let text = String::from_utf8_lossy(data);
                self.feed(&text, emit)
            }
        }
    }

    pub fn feed<E: Emit>(&mut self, text: &str, emit: &mut E) {
        let bytes = text.as_bytes();
        let mut start = 0;
        // one pass over the whole text, 32 bytes at a time, not a search set up per line
        for nl in bytes::find_iter(b'\n', bytes) {
            // '\n' is a char boundary
            let line = &text[start..nl + 1];
            start = nl + 1;
            self.line(line, emit);
        }
        if start < bytes.len() {
            self.line(&text[start..], emit);
        }
    }

    /// inferno's `process_single_stack` loop body for one line.
    #[inline]
    fn line<E: Emit>(&mut self, line: &str, emit: &mut E) {
        if line.as_bytes().first() == Some(&b'#') {
            return;
        }
        let line = trim_end(line);
        if line.is_empty() {
            self.after_event(emit);
        } else if self.in_event {
            self.on_stack_line(line);
        } else {
            if E::META {
                // A sample whose event line never reached a blank line (e.g. a one-line event
                // whose only frame was dropped) ends here.
                self.flush_pending(emit);
            }
            self.on_event_line(line);
            if !self.frames.is_empty() {
                // we must have hit a combined event/stack line
                self.after_event(emit);
            }
        }
    }

    /// End of input (inferno: at EOF the last stack is emitted even without a blank line).
    pub fn finish<E: Emit>(&mut self, emit: &mut E) {
        if !self.frames.is_empty() {
            self.after_event(emit);
        }
        if E::META {
            self.flush_pending(emit);
        }
        self.in_event = false;
        self.stack_filter = StackFilter::Keep;
        self.frames.clear();
        self.buf.clear();
    }

    fn flush_pending<E: Emit>(&mut self, emit: &mut E) {
        if std::mem::take(&mut self.pending) {
            emit.stackless(self.period.unwrap_or(1), &self.meta);
        }
    }

    // we have an event line, like:
    //
    //     java 25607 4794564.109216: cycles:
    //     java 12688 [002] 6544038.708352: cpu-clock:
    //     V8 WorkerThread 25607 4794564.109216: cycles:
    //     java 24636/25607 [000] 4794564.109216: cycles:
    //     java 12688/12764 6544038.708352: cpu-clock:
    //     V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:
    //     vote   913    72.176760:     257597 cycles:uppp:
    //     false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
    fn on_event_line(&mut self, line: &str) {
        self.in_event = true;
        let Some((comm, pid, tid, end)) = event_line_parts(line) else {
            self.weird_lines += 1;
            self.in_event = false;
            return;
        };
        let rest = &line[end..];
        // inferno: line[end..].splitn(3, ':').skip(1): the text between the first and second
        // colons holds "PERIOD EVENT"; what follows the second colon may be a one-frame stack.
        let mut event: Option<&str> = None;
        let mut post_event: Option<&str> = None;
        if let Some(c1) = find_byte(b':', rest) {
            let after = &rest[c1 + 1..];
            let piece = match find_byte(b':', after) {
                Some(c2) => {
                    post_event = Some(&after[c2 + 1..]);
                    &after[..c2]
                }
                None => after,
            };
            // period_and_event.rsplit(' '): the last word is the event, the one before the period
            match rfind_byte(b' ', piece) {
                Some(sp) => {
                    event = Some(&piece[sp + 1..]);
                    let before = &piece[..sp];
                    let p = match rfind_byte(b' ', before) {
                        Some(sp2) => &before[sp2 + 1..],
                        None => before,
                    };
                    self.period = p.parse::<u64>().ok();
                }
                None => {
                    event = Some(piece);
                    self.period = None;
                }
            }
        }
        if let (Some(ev), false) = (event, self.keep_all) {
            match self.event_filter {
                Some(ref f) => {
                    if ev != f {
                        self.stack_filter = StackFilter::Skip;
                        return;
                    }
                }
                // By default only show events of the first encountered event type.
                None => self.event_filter = Some(ev.to_string()),
            }
        }

        // some event lines _include_ a stack line if the stack only has one frame:
        //     vote   913    72.176760:     257597 cycles:uppp:                  (no stack)
        //     false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])
        // trim until the first space or ':', whichever comes first, and look at what is left.
        let single_stack = post_event.and_then(|pe| {
            let start = bytes::find2(b':', b' ', pe.as_bytes())
                .map(|i| i + 1)
                .unwrap_or(0);
            let s = trim(&pe[start..]);
            if s.is_empty() {
                None
            } else {
                Some(s)
            }
        });

        // comm with its spaces as '_' (ASCII both: the rest of the text is copied as it is)
        self.pname.clear();
        let mut name = comm;
        while let Some(sp) = bytes::find(b' ', name.as_bytes()) {
            self.pname.push_str(&name[..sp]);
            self.pname.push('_');
            name = &name[sp + 1..];
        }
        self.pname.push_str(name);
        if self.opt.include_tid {
            self.pname.push('-');
            self.pname.push_str(pid);
            self.pname.push('/');
            self.pname.push_str(tid);
        } else if self.opt.include_pid {
            self.pname.push('-');
            self.pname.push_str(pid);
        }

        if self.keep_all {
            fill_meta(&mut self.meta, comm, pid, tid, rest, event);
            self.pending = true;
        }

        if let Some(stack_line) = single_stack {
            self.on_stack_line(stack_line);
            self.in_event = false;
        }
    }

    // we have a stack line that shows one stack entry from the preceding event, like:
    //
    //     ffffffff8103ce3b native_safe_halt ([kernel.kallsyms])
    //     7f533952bc77 _dl_check_map_versions+0x597 (/usr/lib/ld-2.28.so)
    //     7f53389994d0 [unknown] ([unknown])
    //                0 [unknown] ([unknown])
    fn on_stack_line(&mut self, line: &str) {
        if self.stack_filter != StackFilter::Keep {
            return;
        }
        let Some((pc, mut rawfunc, module)) = stack_line_parts(line) else {
            self.weird_lines += 1;
            return;
        };
        // Strip off symbol offsets ("+0x1b"; also a bare "+0x")
        if let Some(off) = rfind_offset(rawfunc.as_bytes()) {
            if rawfunc.as_bytes()[off + 3..]
                .iter()
                .all(u8::is_ascii_hexdigit)
            {
                rawfunc = &rawfunc[..off];
            }
        }
        // skip process names (stackcollapse-perf.pl does the same)
        if rawfunc.starts_with('(') {
            return;
        }
        // perf mostly demangles Rust symbols, but this fixes what it gets wrong
        let fixed = fix_partially_demangled_rust_symbol(rawfunc);
        let rawfunc: &str = &fixed;

        let opt = self.opt;
        let java = self.pname.starts_with("java");
        let line_start = self.frames.len();
        // Most frames hold no '-' (no "->"), ';' nor '(' and are not "[unknown]": one frame, its
        // text as it is (tidy_generic leaves it alone). One scan tells, instead of three.
        let plain =
            rawfunc != "[unknown]" && bytes::find3(b'-', b';', b'(', rawfunc.as_bytes()).is_none();
        // Java inlining: "a->b->c"; after the first, frames get "_[i]".
        for (i, func) in (ArrowSplit {
            rest: Some(rawfunc),
            whole: plain,
        })
        .enumerate()
        {
            let start = self.buf.len();
            with_module_fallback(&mut self.buf, module, func, pc, opt.include_addrs);
            if !plain {
                tidy_generic(&mut self.buf, start);
            }
            let mut fstart = start;
            if java {
                // tidy_java: "Lorg/mozilla/Foo:.call" -> "org/mozilla/Foo:.call"
                let f = &self.buf[start..];
                if f.first() == Some(&b'L') && bytes::find(b'/', f).is_some() {
                    fstart = start + 1;
                }
            }
            if i > 0 {
                if !contains(&self.buf[fstart..], b"_[i]") {
                    self.buf.extend_from_slice(b"_[i]"); // inlined
                }
            } else if opt.annotate_kernel && is_kernel(module) {
                self.buf.extend_from_slice(b"_[k]"); // kernel
            } else if opt.annotate_jit
                && ((module.starts_with("/tmp/perf-") && module.ends_with(".map"))
                    || (module.contains("/jitted-") && module.ends_with(".so")))
                && !contains(&self.buf[fstart..], b"_[j]")
            {
                self.buf.extend_from_slice(b"_[j]"); // jitted
            }
            self.frames.push((fstart, self.buf.len()));
        }
        self.frames[line_start..].reverse();

        if !opt.skip_after.is_empty() && opt.skip_after.iter().any(|s| rawfunc == s) {
            self.stack_filter = StackFilter::SkipRemaining;
        }
    }

    fn after_event<E: Emit>(&mut self, emit: &mut E) {
        if !self.frames.is_empty() {
            let stack = Stack {
                // If we skip remaining frames we want to skip pname as well.
                pname: (self.stack_filter != StackFilter::SkipRemaining)
                    .then_some(self.pname.as_bytes()),
                buf: &self.buf,
                frames: &self.frames,
            };
            let weight = self.period.unwrap_or(1);
            if E::META {
                let meta = std::mem::take(&mut self.pending).then_some(&self.meta);
                emit.stack(&stack, weight, meta);
            } else {
                emit.stack(&stack, weight, None);
            }
        } else if E::META {
            self.flush_pending(emit);
        }
        // reset for the next event
        self.in_event = false;
        self.stack_filter = StackFilter::Keep;
        self.frames.clear();
        self.buf.clear();
        self.period = None;
    }
}

/// inferno's `event_line_parts`: (comm, pid or "?", tid, index after the tid word).
/// The first all-digit word (optionally PID/TID) followed by a space ends the comm, which may
/// itself contain spaces ("V8 WorkerThread").
pub fn event_line_parts(line: &str) -> Option<(&str, &str, &str, usize)> {
    let b = line.as_bytes();
    let mut word_start = 0usize;
    let mut all_digits = false;
    let mut last_was_space = false;
    let mut slash: Option<usize> = None;
    for (idx, &c) in b.iter().enumerate() {
        if c == b' ' {
            if all_digits && !last_was_space {
                let (pid, tid) = match slash {
                    Some(s) => (&line[word_start..s], &line[s + 1..idx]),
                    None => ("?", &line[word_start..idx]),
                };
                // also trim comm in case multiple spaces were used to separate
                let comm = trim(&line[..word_start - 1]);
                return Some((comm, pid, tid, idx + 1));
            }
            word_start = idx + 1;
            all_digits = true;
        } else if c == b'/' {
            if all_digits {
                slash = Some(idx);
            }
        } else if !c.is_ascii_digit() {
            all_digits = false;
            slash = None;
        }
        last_was_space = c == b' ';
    }
    None
}

/// inferno's `stack_line_parts`: (pc, rawfunc, module without its parentheses).
pub fn stack_line_parts(line: &str) -> Option<(&str, &str, &str)> {
    let line = trim_start(line);
    let b = line.as_bytes();
    let sp = bytes::find(b' ', b)?;
    let pc = trim_end(&line[..sp]);
    let rest = &line[sp + 1..];
    let sp2 = bytes::rfind(b' ', rest.as_bytes())?;
    let module = &rest[sp2 + 1..];
    if !module.starts_with('(') || !module.ends_with(')') {
        return None;
    }
    let module = &module[1..module.len() - 1];
    let rawfunc = match trim(&rest[..sp2]) {
        // Sometimes there are two spaces between the pc and the (, like:
        //     7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)
        // In order to match the perl version, the rawfunc should be " ", and not "".
        "" => " ",
        s => s,
    };
    Some((pc, rawfunc, module))
}

/// str::trim_end (Unicode White_Space), with a fast path for ASCII ends. Inlined (called
/// several times per line: as calls, with the Unicode path in them, trim_start and trim_end were
/// ~10% of the pass's instructions), the Unicode path out of line.
#[inline(always)]
pub fn trim_end(s: &str) -> &str {
    let b = s.as_bytes();
    let mut n = b.len();
    while n > 0 {
        match b[n - 1] {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => n -= 1,
            c if c >= 0x80 => return trim_end_unicode(&s[..n]),
            _ => break,
        }
    }
    &s[..n]
}

#[cold]
#[inline(never)]
fn trim_end_unicode(s: &str) -> &str {
    s.trim_end()
}

/// str::trim_start (Unicode White_Space), with a fast path for ASCII starts (see trim_end).
#[inline(always)]
pub fn trim_start(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        // perf script pads short addresses with spaces: 8 of them at a time
        while let Some(w) = b.get(i..i + 8) {
            if u64::from_le_bytes(w.try_into().expect("8 bytes"))
                != u64::from_le_bytes(*b"        ")
            {
                break;
            }
            i += 8;
        }
        if i >= b.len() {
            break;
        }
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => i += 1,
            c if c >= 0x80 => return trim_start_unicode(&s[i..]),
            _ => break,
        }
    }
    &s[i..]
}

#[cold]
#[inline(never)]
fn trim_start_unicode(s: &str) -> &str {
    s.trim_start()
}

#[inline]
pub fn trim(s: &str) -> &str {
    trim_start(trim_end(s))
}

/// str::find of an ASCII byte, inlined (bytes.rs: std's for a char, and the memchr crate's
/// calls, cost more on the short pieces of a line).
#[inline(always)]
fn find_byte(c: u8, s: &str) -> Option<usize> {
    bytes::find(c, s.as_bytes())
}

/// str::rfind of an ASCII byte (see find_byte).
#[inline(always)]
fn rfind_byte(c: u8, s: &str) -> Option<usize> {
    bytes::rfind(c, s.as_bytes())
}

/// The last "+0x" in s.
#[inline]
fn rfind_offset(s: &[u8]) -> Option<usize> {
    let mut end = s.len();
    while let Some(i) = bytes::rfind(b'+', &s[..end]) {
        if s.len() >= i + 3 && s[i + 1] == b'0' && s[i + 2] == b'x' {
            return Some(i);
        }
        end = i;
    }
    None
}

/// Splits on "->" (Java inlining) like str::split("->"); `whole`: the text holds no '-' (known
/// already), it is the only piece.
struct ArrowSplit<'a> {
    rest: Option<&'a str>,
    whole: bool,
}

impl<'a> Iterator for ArrowSplit<'a> {
    type Item = &'a str;
    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let s = self.rest?;
        if self.whole {
            self.rest = None;
            return Some(s);
        }
        let b = s.as_bytes();
        let mut from = 0;
        while let Some(i) = bytes::find(b'-', &b[from..]) {
            let i = from + i;
            if b.get(i + 1) == Some(&b'>') {
                self.rest = Some(&s[i + 2..]);
                return Some(&s[..i]);
            }
            from = i + 1;
        }
        self.rest = None;
        Some(s)
    }
}

#[inline]
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// massage function name to be nicer: "[unknown]" -> "[module]" (or "[module <pc>]" with
/// --addrs); written into `buf`.
#[inline]
pub(crate) fn with_module_fallback(
    buf: &mut Vec<u8>,
    module: &str,
    func: &str,
    pc: &str,
    include_addrs: bool,
) {
    if func != "[unknown]" {
        buf.extend_from_slice(func.as_bytes());
        return;
    }
    let name = match (module, include_addrs) {
        ("[unknown]", true) => "unknown",
        ("[unknown]", false) => {
            buf.extend_from_slice(func.as_bytes());
            return;
        }
        // use everything following last / of module as function name
        (module, _) => &module[module.rfind('/').map(|i| i + 1).unwrap_or(0)..],
    };
    buf.push(b'[');
    buf.extend_from_slice(name.as_bytes());
    if include_addrs {
        buf.extend_from_slice(b" <");
        buf.extend_from_slice(pc.as_bytes());
        buf.extend_from_slice(b">]");
    } else {
        buf.push(b']');
    }
}

/// inferno's `tidy_generic` on buf[start..]: ';' -> ':', and drop the argument list, except for
/// Go methods ("net/http.(*Client).Do") and C++ "(anonymous namespace)", and parentheses nested
/// in <...>, {...}, [...].
#[inline]
pub(crate) fn tidy_generic(buf: &mut Vec<u8>, start: usize) {
    let s = &mut buf[start..];
    let mut from = 0;
    while let Some(i) = bytes::find(b';', &s[from..]) {
        s[from + i] = b':';
        from += i + 1;
    }
    if bytes::find(b'(', s).is_none() {
        return;
    }
    let mut depth: i32 = 0;
    let mut last_dot: Option<usize> = None;
    let mut len = s.len();
    for (idx, &c) in s.iter().enumerate() {
        match c {
            b'<' | b'{' | b'[' => depth += 1,
            b'>' | b'}' | b']' | b')' => depth -= 1,
            b'(' => {
                if depth == 0 {
                    let is_go_function = last_dot == Some(idx);
                    let is_anonymous_namespace = s[idx..].starts_with(b"(anonymous namespace)");
                    if !is_go_function && !is_anonymous_namespace {
                        len = idx;
                        break;
                    }
                }
                depth += 1;
            }
            b'.' => last_dot = Some(idx + 1),
            _ => {}
        }
    }
    buf.truncate(start + len);
}

/// inferno's matcher.rs: kernel modules, module files, vmlinux.
pub fn is_kernel(s: &str) -> bool {
    (s.starts_with('[') || s.ends_with(".ko") || is_vmlinux(s)) && s != "[unknown]"
}

fn is_vmlinux(s: &str) -> bool {
    match s.rfind("vmlinux") {
        Some(vm) => s[vm..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')),
        None => false,
    }
}

const RUST_HASH_LENGTH: usize = 17;

/// inferno's common.rs `fix_partially_demangled_rust_symbol`.
pub fn fix_partially_demangled_rust_symbol(symbol: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let b = symbol.as_bytes();
    // Rust hashes are hex digits with an `h` prepended.
    if b.len() < RUST_HASH_LENGTH {
        return Cow::Borrowed(symbol);
    }
    let tail = &b[b.len() - RUST_HASH_LENGTH..];
    if tail[0] != b'h' || !tail[1..].iter().all(u8::is_ascii_hexdigit) {
        return Cow::Borrowed(symbol);
    }
    // The tail is ASCII, so this is a char boundary.
    let mut rest = &symbol[..symbol.len() - RUST_HASH_LENGTH];
    if rest.ends_with("::") {
        rest = &rest[..rest.len() - 2];
    }
    if rest.starts_with("_$") {
        rest = &rest[1..];
    }
    const TABLE: [(&str, &str); 20] = [
        ("$SP$", "@"),
        ("$BP$", "*"),
        ("$RF$", "&"),
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$LP$", "("),
        ("$RP$", ")"),
        ("$C$", ","),
        ("$u7e$", "~"),
        ("$u20$", " "),
        ("$u27$", "'"),
        ("$u3d$", "="),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u3b$", ";"),
        ("$u2b$", "+"),
        ("$u21$", "!"),
        ("$u22$", "\""),
    ];
    let mut demangled = String::with_capacity(rest.len());
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            if r.starts_with('.') {
                demangled.push_str("::");
                rest = &rest[2..];
            } else {
                demangled.push('.');
                rest = r;
            }
        } else if rest.starts_with('$') {
            match TABLE.iter().find(|(pat, _)| rest.starts_with(pat)) {
                Some((pat, rep)) => {
                    demangled.push_str(rep);
                    rest = &rest[pat.len()..];
                }
                None => {
                    demangled.push_str(rest);
                    break;
                }
            }
        } else {
            let idx = rest.find(['$', '.']).unwrap_or(rest.len());
            demangled.push_str(&rest[..idx]);
            rest = &rest[idx..];
        }
    }
    Cow::Owned(demangled)
}

/// Tables mode: what the event line says beyond comm: CPU ("[002]"), timestamp
/// ("6544038.708352:", seconds, to ns), pid and tid as numbers.
/// Fills `m` with what the event line says (its strings' buffers are reused).
fn fill_meta(m: &mut Meta, comm: &str, pid: &str, tid: &str, rest: &str, event: Option<&str>) {
    let mut r = rest.trim_start_matches(' ');
    let mut cpu = None;
    if let Some(inner) = r.strip_prefix('[') {
        if let Some(close) = find_byte(b']', inner) {
            cpu = parse_uint(&inner[..close]);
            r = inner[close + 1..].trim_start_matches(' ');
        }
    }
    m.ts_ns = find_byte(b':', r).and_then(|c| parse_seconds_ns(&r[..c]));
    m.cpu = cpu;
    m.pid = parse_uint(pid);
    m.tid = parse_uint(tid);
    m.comm.clear();
    m.comm.push_str(comm);
    match (event, &mut m.event) {
        (Some(e), Some(buf)) => {
            buf.clear();
            buf.push_str(e);
        }
        (e, slot) => *slot = e.map(str::to_string),
    }
}

/// Up to 18 ASCII digits (no sign): at most 999,999,999,999,999,999, within an i64.
fn parse_uint(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for c in s.bytes() {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(v)
}

/// "1428.338238" -> 1428338238000 (any number of decimals up to 9; more are truncated).
pub fn parse_seconds_ns(s: &str) -> Option<i64> {
    let (int, frac) = match find_byte(b'.', s) {
        Some(d) => (&s[..d], &s[d + 1..]),
        None => (s, ""),
    };
    let secs = parse_uint(int)?;
    if !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut ns: i64 = 0;
    for i in 0..9 {
        ns = ns * 10
            + frac
                .as_bytes()
                .get(i)
                .map(|c| (c - b'0') as i64)
                .unwrap_or(0);
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(text: &str, opt: &Options) -> Vec<(String, u64)> {
        let mut out = TextFold::default();
        let mut f = Folder::new(opt, None, false);
        f.feed(text, &mut out);
        f.finish(&mut out);
        let mut v: Vec<_> = out
            .map
            .into_iter()
            .map(|(k, v)| (String::from_utf8(k.into_vec()).unwrap(), v))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn basic() {
        let text = "dd 12 [000] 1.5: 1000 cpu-clock:ppp: \n\tffff a+0x1 ([kernel.kallsyms])\n\tffff b (/lib/x.so)\n\n";
        let got = fold(text, &Options::default());
        assert_eq!(got, vec![("dd;b;a".to_string(), 1000)]);
    }

    #[test]
    fn tidy() {
        let mut b = b"go/build.(*importReader).readByte".to_vec();
        tidy_generic(&mut b, 0);
        assert_eq!(b, b"go/build.(*importReader).readByte");
        let mut b = b"std::function<void (int, int)>::operator(int, int)".to_vec();
        tidy_generic(&mut b, 0);
        assert_eq!(b, b"std::function<void (int, int)>::operator");
        let mut b = b"(anonymous namespace)::myBar()".to_vec();
        tidy_generic(&mut b, 0);
        assert_eq!(b, b"(anonymous namespace)::myBar");
    }

    /// Each sample's metadata (tables mode) and folded stack.
    #[derive(Default)]
    struct Metas(Vec<(Meta, String, u64)>);

    impl Emit for Metas {
        const META: bool = true;
        fn stack(&mut self, stack: &Stack<'_>, weight: u64, meta: Option<&Meta>) {
            let mut key = Vec::new();
            stack.join_into(&mut key);
            let meta = meta.expect("tables mode").clone();
            self.0.push((meta, String::from_utf8(key).unwrap(), weight));
        }
    }

    #[test]
    fn the_event_line_gives_each_field() {
        let text = "fio 29783/29783 [001]  5106.371798:    5025125 cpu-clock:pppH: \n\
                    \tffffffff821cefe6 mas_prev_slot_c0+0x96 ([kernel.kallsyms])\n\n\
                    V8 WorkerThread 25607 4794564.109216: cycles:\n\t7f53 g (/x.so)\n\n\
                    java 24636/25607 [012] 94564.1: 7 instructions:u:\n\t0 [unknown] ([unknown])\n\n";
        let opt = Options::default();
        let mut out = Metas::default();
        let mut f = Folder::new(&opt, None, true);
        f.feed(text, &mut out);
        f.finish(&mut out);
        let got: Vec<_> = out
            .0
            .iter()
            .map(|(m, k, w)| {
                let e = m.event.as_deref();
                (
                    m.ts_ns,
                    m.cpu,
                    m.pid,
                    m.tid,
                    m.comm.as_str(),
                    e,
                    k.as_str(),
                    *w,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    Some(5_106_371_798_000),
                    Some(1),
                    Some(29783),
                    Some(29783),
                    "fio",
                    Some("cpu-clock"),
                    "fio;mas_prev_slot_c0",
                    5025125
                ),
                (
                    Some(4_794_564_109_216_000),
                    None,
                    None,
                    Some(25607),
                    "V8 WorkerThread",
                    Some("cycles"),
                    "V8_WorkerThread;g",
                    1
                ),
                (
                    Some(94_564_100_000_000),
                    Some(12),
                    Some(24636),
                    Some(25607),
                    "java",
                    Some("instructions"),
                    "java;[unknown]",
                    7
                ),
            ]
        );
    }

    #[test]
    fn unsigned_fields() {
        assert_eq!(parse_uint("0"), Some(0));
        assert_eq!(parse_uint("0029783"), Some(29783));
        assert_eq!(
            parse_uint("999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        for bad in [
            "",
            "1000000000000000000",
            "+1",
            "-1",
            "1a",
            " 1",
            "1 ",
            "\u{661}",
        ] {
            assert_eq!(parse_uint(bad), None, "{:?}", bad);
        }
    }

    #[test]
    fn the_root_frame_is_comm_with_its_spaces_as_underscores() {
        let opt = Options::default();
        for (comm, root) in [
            ("V8 WorkerThread", "V8_WorkerThread"),
            ("a  b c", "a__b_c"),
            ("\u{e9}t\u{e9} x", "\u{e9}t\u{e9}_x"),
            ("fio", "fio"),
        ] {
            let text = format!(
                "{} 25607 4794564.109216: 1 cycles:\n\tffff f (/x.so)\n\n",
                comm
            );
            assert_eq!(
                fold(&text, &opt),
                vec![(format!("{};f", root), 1)],
                "{:?}",
                comm
            );
        }
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds_ns("1428.338238"), Some(1_428_338_238_000));
        assert_eq!(parse_seconds_ns("1.123456789"), Some(1_123_456_789));
        assert_eq!(parse_seconds_ns("x"), None);
    }
}
