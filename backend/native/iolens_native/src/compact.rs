//! Fold mode at scale: each thread interns frame names to ids and keys its stacks by id
//! sequences. A deep stack of 40 frames costs 160 bytes instead of its ~2 KB of text, so memory
//! stays a fraction of the folded output however many distinct stacks the input has; the text
//! is only rebuilt, one line at a time, when the result is written.

use std::cmp::Ordering;

use crate::fold::{Emit, Meta, Stack};
use crate::fxhash::FxHashMap;

#[derive(Default)]
pub struct CompactFold {
    names: Vec<Box<[u8]>>,
    ids: FxHashMap<Box<[u8]>, u32>,
    stacks: FxHashMap<Box<[u32]>, u64>,
    scratch: Vec<u32>,
}

impl CompactFold {
    #[inline]
    fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.into());
        self.ids.insert(name.into(), i);
        i
    }

    pub fn len(&self) -> usize {
        self.stacks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    fn join(&self, ids: &[u32], out: &mut Vec<u8>) {
        out.clear();
        for &i in ids {
            out.extend_from_slice(&self.names[i as usize]);
            out.push(b';');
        }
        out.pop();
    }

    /// The order of the joined texts ("a;b" vs "a.c;d" compares as bytes), computed frame by
    /// frame. Valid when no name contains ';' (checked by the caller).
    fn cmp_joined(&self, a: &[u32], b: &[u32]) -> Ordering {
        cmp_ids(&self.names, a, &self.names, b, true)
    }
}

/// The order of the texts of `a` (ids of `na`) and `b` (ids of `nb`), joined with ';', frame by
/// frame; `same`: one table, where equal ids are equal names (and different ids different ones).
/// Valid when no name contains ';'.
fn cmp_ids(na: &[Box<[u8]>], a: &[u32], nb: &[Box<[u8]>], b: &[u32], same: bool) -> Ordering {
    let mut i = 0;
    loop {
        match (a.get(i), b.get(i)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(&x), Some(&y)) => {
                if !(same && x == y) {
                    let (sa, sb) = (&na[x as usize], &nb[y as usize]);
                    if same || sa != sb {
                        let m = sa.len().min(sb.len());
                        match sa[..m].cmp(&sb[..m]) {
                            Ordering::Equal => {}
                            o => return o,
                        }
                        // One name is a prefix of the other: what follows it in its text is ';'
                        // (more frames) or the end.
                        let next = |len: usize, n: &[u8]| -> Option<u8> {
                            if n.len() > m {
                                Some(n[m])
                            } else if i + 1 < len {
                                Some(b';')
                            } else {
                                None
                            }
                        };
                        return next(a.len(), sa).cmp(&next(b.len(), sb));
                    }
                }
            }
        }
        i += 1;
    }
}

/// Calls f(text, count) for every stack of `parts` (the folds of several threads), sorted by text
/// as inferno sorts its output, stacks of equal text summed; returns the number of lines. Each
/// part is sorted on its own thread, then the sorted parts are merged: no part is re-keyed into
/// another (which, with mostly distinct stacks, cost as much as folding on one thread).
pub fn for_each_sorted_parts(
    parts: &[CompactFold],
    mut f: impl FnMut(&[u8], u64) -> std::io::Result<()>,
) -> std::io::Result<usize> {
    let mut lines = 0usize;
    if parts
        .iter()
        .any(|p| p.names.iter().any(|n| n.contains(&b';')))
    {
        // A comm with ';' in it: two id sequences can give one text. Rare; fold by text.
        let mut by_text: FxHashMap<Box<[u8]>, u64> = FxHashMap::default();
        let mut text = Vec::new();
        for p in parts {
            for (k, &v) in &p.stacks {
                p.join(k, &mut text);
                *by_text.entry(text[..].into()).or_insert(0) += v;
            }
        }
        let mut v: Vec<_> = by_text.into_iter().collect();
        v.sort_unstable();
        for (k, c) in v {
            f(&k, c)?;
            lines += 1;
        }
        return Ok(lines);
    }
    let sorted: Vec<Vec<(&[u32], u64)>> = std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .iter()
            .map(|p| {
                s.spawn(move || {
                    let mut v: Vec<(&[u32], u64)> =
                        p.stacks.iter().map(|(k, &c)| (&k[..], c)).collect();
                    v.sort_unstable_by(|a, b| p.cmp_joined(a.0, b.0));
                    v
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("iolens_native: a sorting thread panicked"))
            .collect()
    });
    let mut heads = vec![0usize; parts.len()];
    let mut text = Vec::new();
    let cmp = |p: usize, hp: usize, q: usize, hq: usize| {
        cmp_ids(
            &parts[p].names,
            sorted[p][hp].0,
            &parts[q].names,
            sorted[q][hq].0,
            p == q,
        )
    };
    loop {
        let mut best: Option<usize> = None;
        for p in 0..parts.len() {
            if heads[p] < sorted[p].len() {
                best = match best {
                    Some(b) if cmp(p, heads[p], b, heads[b]) != Ordering::Less => Some(b),
                    _ => Some(p),
                };
            }
        }
        let Some(b) = best else { break };
        let (ids, mut count) = sorted[b][heads[b]];
        for p in 0..parts.len() {
            if p != b
                && heads[p] < sorted[p].len()
                && cmp(p, heads[p], b, heads[b]) == Ordering::Equal
            {
                count += sorted[p][heads[p]].1;
                heads[p] += 1;
            }
        }
        heads[b] += 1;
        parts[b].join(ids, &mut text);
        f(&text, count)?;
        lines += 1;
    }
    Ok(lines)
}

impl Emit for CompactFold {
    const META: bool = false;

    #[inline]
    fn stack(&mut self, stack: &Stack<'_>, weight: u64, _meta: Option<&Meta>) {
        let mut key = std::mem::take(&mut self.scratch);
        key.clear();
        stack.for_each(|f| key.push(self.intern(f)));
        if let Some(c) = self.stacks.get_mut(&key[..]) {
            *c += weight;
        } else {
            self.stacks.insert(key[..].into(), weight);
        }
        self.scratch = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_order_is_byte_order() {
        let mut c = CompactFold::default();
        let words: Vec<&[u8]> = vec![b"a", b"a.b", b"ab", b"a b", b"b", b"a:x", b"", b"a~"];
        let ids: Vec<u32> = words.iter().map(|w| c.intern(w)).collect();
        let mut seqs: Vec<Vec<u32>> = Vec::new();
        for &x in &ids {
            seqs.push(vec![x]);
            for &y in &ids {
                seqs.push(vec![x, y]);
                for &z in &ids[..3] {
                    seqs.push(vec![x, y, z]);
                }
            }
        }
        let mut text_a = Vec::new();
        let mut text_b = Vec::new();
        for a in &seqs {
            for b in &seqs {
                c.join(a, &mut text_a);
                c.join(b, &mut text_b);
                if text_a != text_b {
                    assert_eq!(c.cmp_joined(a, b), text_a.cmp(&text_b), "{:?} {:?}", a, b);
                }
            }
        }
    }
}
