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

    /// Adds another thread's result (its ids translated to ours).
    pub fn merge(&mut self, other: CompactFold) {
        if other.stacks.len() > self.stacks.len() {
            let mine = std::mem::replace(self, other);
            return self.merge(mine);
        }
        let map: Vec<u32> = other.names.iter().map(|n| self.intern(n)).collect();
        let mut key = Vec::new();
        for (k, v) in other.stacks {
            key.clear();
            key.extend(k.iter().map(|&i| map[i as usize]));
            if let Some(c) = self.stacks.get_mut(&key[..]) {
                *c += v;
            } else {
                self.stacks.insert(key[..].into(), v);
            }
        }
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
        let mut i = 0;
        loop {
            match (a.get(i), b.get(i)) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(x), Some(y)) if x == y => {}
                (Some(&x), Some(&y)) => {
                    let (na, nb) = (&self.names[x as usize], &self.names[y as usize]);
                    let m = na.len().min(nb.len());
                    match na[..m].cmp(&nb[..m]) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                    // One name is a prefix of the other: what follows it in its text is ';'
                    // (more frames) or the end.
                    let next = |ids: &[u32], n: &[u8]| -> Option<u8> {
                        if n.len() > m {
                            Some(n[m])
                        } else if i + 1 < ids.len() {
                            Some(b';')
                        } else {
                            None
                        }
                    };
                    return next(a, na).cmp(&next(b, nb));
                }
            }
            i += 1;
        }
    }

    /// Calls f(text, count) for every stack, sorted by text as inferno sorts its output (byte
    /// order), and stacks whose texts are equal merged.
    pub fn for_each_sorted(
        &self,
        mut f: impl FnMut(&[u8], u64) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut text = Vec::new();
        if self.names.iter().any(|n| n.contains(&b';')) {
            // A comm with ';' in it: two id sequences can give one text. Rare; fold by text.
            let mut by_text: FxHashMap<Box<[u8]>, u64> = FxHashMap::default();
            for (k, &v) in &self.stacks {
                self.join(k, &mut text);
                *by_text.entry(text[..].into()).or_insert(0) += v;
            }
            let mut v: Vec<_> = by_text.into_iter().collect();
            v.sort_unstable();
            for (k, c) in v {
                f(&k, c)?;
            }
            return Ok(());
        }
        let mut v: Vec<(&[u32], u64)> = self.stacks.iter().map(|(k, &c)| (&k[..], c)).collect();
        v.sort_unstable_by(|a, b| self.cmp_joined(a.0, b.0));
        for (k, c) in v {
            self.join(k, &mut text);
            f(&text, c)?;
        }
        Ok(())
    }
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
