//! Python's view of the text: `str.isspace()`, `split()`, `strip()`, character slices, `int()`,
//! and the regexes of the reference reader (PERF_RECORD_LOST, a sample's header), on UTF-8 text.

use memchr::memmem;

/// (sector_t)-1: block_rq_complete prints a flush's completion at this sector.
const NO_SECTOR: i128 = u64::MAX as i128;

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

pub(super) fn lstrip<const A: bool>(s: &str) -> &str {
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

pub(super) fn rstrip(s: &str) -> &str {
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

pub(super) fn strip(s: &str) -> &str {
    rstrip(lstrip::<false>(s))
}

pub(super) fn first_char_len(s: &str) -> usize {
    s.chars().next().map_or(0, |c| c.len_utf8())
}

pub(super) fn last_char_len(s: &str) -> usize {
    s.chars().next_back().map_or(0, |c| c.len_utf8())
}

/// s[1:-1]
pub(super) fn inner(s: &str) -> &str {
    let a = first_char_len(s);
    let b = s.len() - last_char_len(s);
    if a < b {
        &s[a..b]
    } else {
        ""
    }
}

pub(super) fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// s[a:b] with byte bounds, empty when a > b (Python's slice of crossed bounds).
#[inline]
pub(super) fn slice(s: &str, a: usize, b: usize) -> &str {
    if a <= b {
        &s[a..b]
    } else {
        ""
    }
}

/// The first tokens of `s.split()`, the last one and their number.
pub(super) struct Split<'a> {
    pub(super) tok: [&'a str; 5],
    pub(super) n: usize,
    pub(super) last: &'a str,
}

impl<'a> Split<'a> {
    #[inline]
    pub(super) fn of<const A: bool>(s: &'a str) -> Self {
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
pub(super) fn rsplit4<const A: bool>(s: &str) -> Option<[&str; 4]> {
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
pub(super) enum Fail {
    Invalid,
    Fallback(&'static str),
}

pub(super) type R<T> = Result<T, Fail>;

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
pub(super) fn int64(s: &str) -> R<i64> {
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
pub(super) fn sector_of(s: &str) -> R<i64> {
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
pub(super) fn ovf<T>(v: Option<T>) -> R<T> {
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

pub(super) fn time_ns(secs: &str, frac: &str) -> R<i64> {
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
pub(super) fn find_colon_space(s: &[u8]) -> Option<usize> {
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
pub(super) fn find_empty_cmd(s: &[u8]) -> Option<usize> {
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
pub(super) fn lost_search(s: &str) -> R<Option<i128>> {
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
pub(super) fn sample_search(b: &[u8]) -> bool {
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
