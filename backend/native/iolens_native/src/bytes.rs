//! Searches for one (or three) ASCII bytes in the short pieces of a perf script line (the pc,
//! the function, the module of a frame line; the fields of an event line) and for the line ends
//! of a chunk. Inlined, 16 or 32 bytes at a time (SSE2, part of x86_64's baseline; plain loops
//! elsewhere), instead of the memchr crate's calls: on pieces of 10-60 bytes its dispatch and its
//! set-up per call cost more than the search (cachegrind, the pass over distinct-50k: the memchr
//! functions were ~30% of its instructions, 250M of 848M).
//!
//! Each result is exactly the index that `memchr::memchr` / `memrchr` / `memchr3` /
//! `memchr_iter` gives; the tests compare them at every length and position.

/// 16 bytes of `s` at `i`, compared with each of `pats`: bit k of the result is set when byte
/// i + k equals one of them (`i + 16 <= s.len()`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block16<const N: usize>(s: &[u8], i: usize, pats: [u8; N]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    let b = &s[i..i + 16];
    // SAFETY: SSE2 is part of x86_64's baseline; the unaligned load reads the 16 bytes of `b`.
    unsafe {
        let v = _mm_loadu_si128(b.as_ptr() as *const __m128i);
        let mut eq = _mm_setzero_si128();
        for p in pats {
            eq = _mm_or_si128(eq, _mm_cmpeq_epi8(v, _mm_set1_epi8(p as i8)));
        }
        _mm_movemask_epi8(eq) as u32 & 0xffff
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn block16<const N: usize>(s: &[u8], i: usize, pats: [u8; N]) -> u32 {
    let mut m = 0u32;
    for (k, &x) in s[i..i + 16].iter().enumerate() {
        m |= (pats.contains(&x) as u32) << k;
    }
    m
}

/// The first index in `s` of a byte of `pats`. Pieces of 16 bytes or more in blocks of 16, the
/// last block ending at the end of `s` (overlapping the one before, whose bytes held none).
#[inline(always)]
fn find_any<const N: usize>(pats: [u8; N], s: &[u8]) -> Option<usize> {
    if s.len() < 16 {
        return s.iter().position(|x| pats.contains(x));
    }
    let mut i = 0;
    loop {
        let m = block16(s, i, pats);
        if m != 0 {
            return Some(i + m.trailing_zeros() as usize);
        }
        if i + 16 == s.len() {
            return None;
        }
        i = (i + 16).min(s.len() - 16);
    }
}

/// The first index of `c` in `s` (memchr).
#[inline(always)]
pub fn find(c: u8, s: &[u8]) -> Option<usize> {
    find_any([c], s)
}

/// The first index of `a` or `b` in `s` (memchr2).
#[inline(always)]
pub fn find2(a: u8, b: u8, s: &[u8]) -> Option<usize> {
    find_any([a, b], s)
}

/// The first index of any of `a`, `b`, `c` in `s` (memchr3).
#[inline(always)]
pub fn find3(a: u8, b: u8, c: u8, s: &[u8]) -> Option<usize> {
    find_any([a, b, c], s)
}

/// The last index of `c` in `s` (memrchr): blocks of 16 from the end, the last one starting at
/// 0 (overlapping the one after it, whose bytes held none).
#[inline(always)]
pub fn rfind(c: u8, s: &[u8]) -> Option<usize> {
    if s.len() < 16 {
        return s.iter().rposition(|&x| x == c);
    }
    let mut i = s.len() - 16;
    loop {
        let m = block16(s, i, [c]);
        if m != 0 {
            return Some(i + 31 - m.leading_zeros() as usize);
        }
        if i == 0 {
            return None;
        }
        i = i.saturating_sub(16);
    }
}

/// The index of every `c` in `s`, in order (memchr::memchr_iter), found 32 bytes at a time: a
/// perf script line is ~50 bytes, for which the memchr crate's iterator spends more on each
/// call than on the search (~120 instructions a line on distinct-50k). x86_64 (SSE2, part of
/// its baseline); elsewhere the memchr crate's iterator.
pub struct Finds<'a> {
    s: &'a [u8],
    c: u8,
    /// The bits of the block at `base` not yet returned (bit i: `c` at base + i).
    mask: u32,
    base: usize,
    /// Where the next block starts.
    next: usize,
}

pub fn find_iter(c: u8, s: &[u8]) -> Finds<'_> {
    Finds {
        s,
        c,
        mask: 0,
        base: 0,
        next: 0,
    }
}

impl Finds<'_> {
    /// The mask of the 32 bytes at `i` (`i + 32 <= s.len()`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn block(&self, i: usize) -> u32 {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let b = &self.s[i..i + 32];
        // SAFETY: SSE2 is part of x86_64's baseline; the loads read the 32 bytes of `b`
        // (unaligned loads).
        unsafe {
            let pat = _mm_set1_epi8(self.c as i8);
            let lo = _mm_loadu_si128(b.as_ptr() as *const __m128i);
            let hi = _mm_loadu_si128(b.as_ptr().add(16) as *const __m128i);
            let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(lo, pat)) as u32 & 0xffff;
            let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(hi, pat)) as u32 & 0xffff;
            lo | (hi << 16)
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn block(&self, i: usize) -> u32 {
        let mut m = 0u32;
        for (k, &x) in self.s[i..i + 32].iter().enumerate() {
            m |= ((x == self.c) as u32) << k;
        }
        m
    }
}

impl Iterator for Finds<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.mask != 0 {
                let bit = self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                return Some(self.base + bit);
            }
            let i = self.next;
            if i + 32 <= self.s.len() {
                self.mask = self.block(i);
                self.base = i;
                self.next = i + 32;
            } else if i < self.s.len() {
                let mut m = 0u32;
                for (k, &x) in self.s[i..].iter().enumerate() {
                    m |= ((x == self.c) as u32) << k;
                }
                self.mask = m;
                self.base = i;
                self.next = self.s.len();
            } else {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn they_agree_with_memchr_at_every_length_and_position() {
        // every byte value around the needles (a carry between bytes would show as a wrong
        // index next to a byte one above or below the needle, or next to 0x00 / 0x80 / 0xff)
        let fill = [
            0u8, 1, 0x1f, 0x20, 0x21, 0x2b, 0x2d, 0x7f, 0x80, 0x81, 0xa0, 0xfe, 0xff,
        ];
        for len in 0..70usize {
            for &f in &fill {
                for pos in [
                    None,
                    Some(0),
                    Some(1),
                    Some(7),
                    Some(8),
                    Some(15),
                    Some(len / 2),
                ] {
                    for second in [None, Some(3), Some(9), Some(len.saturating_sub(1))] {
                        let mut s = vec![f; len];
                        for p in [pos, second].into_iter().flatten() {
                            if p < len {
                                s[p] = b' ';
                            }
                        }
                        if len > 5 {
                            s[5] = b'(';
                        }
                        for c in [b' ', b'(', b'+', f] {
                            assert_eq!(find(c, &s), memchr::memchr(c, &s), "{:?} {}", s, c);
                            assert_eq!(rfind(c, &s), memchr::memrchr(c, &s), "{:?} {}", s, c);
                        }
                        assert_eq!(find2(b':', b' ', &s), memchr::memchr2(b':', b' ', &s));
                        assert_eq!(
                            find3(b'-', b';', b'(', &s),
                            memchr::memchr3(b'-', b';', b'(', &s)
                        );
                        assert_eq!(find3(b' ', f, b'+', &s), memchr::memchr3(b' ', f, b'+', &s));
                    }
                }
            }
        }
    }

    #[test]
    fn find_iter_agrees_with_memchr_iter() {
        // lengths around the 32-byte blocks, the byte at every position, runs of it, none
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for len in 0..100usize {
            cases.push(vec![b'a'; len]);
            cases.push(vec![b'\n'; len]);
            for p in 0..len {
                let mut s = vec![b'x'; len];
                s[p] = b'\n';
                if p + 3 < len {
                    s[p + 3] = b'\n';
                }
                cases.push(s);
            }
        }
        let text = "c 1 [000] 1.0: 1 cycles:\n\tffff f (/lib/m.so)\n\n".repeat(40);
        cases.push(text.into_bytes());
        cases.push((0..=255u8).cycle().take(1000).collect());
        for s in &cases {
            let want: Vec<usize> = memchr::memchr_iter(b'\n', s).collect();
            assert_eq!(find_iter(b'\n', s).collect::<Vec<_>>(), want, "{:?}", s);
        }
    }
}
