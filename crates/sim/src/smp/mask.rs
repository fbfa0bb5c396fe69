//! `struct cpumask`, as the scheduler uses it: a bitmap over CPU ids, walked in id order or
//! wrapping from a given CPU (`for_each_cpu_wrap()`).

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mask {
    words: Vec<u64>,
}

impl Mask {
    pub fn empty(cpus: u32) -> Mask {
        Mask { words: vec![0; (cpus as usize).div_ceil(64)] }
    }

    /// CPUs `first .. first + len`.
    pub fn range(cpus: u32, first: u32, len: u32) -> Mask {
        let mut m = Mask::empty(cpus);
        m.set_range(first, len);
        m
    }

    /// Set CPUs `first .. first + len`, a word at a time.
    pub fn set_range(&mut self, first: u32, len: u32) {
        let (mut c, end) = (first, first + len);
        while c < end {
            let bit = c % 64;
            let n = (64 - bit).min(end - c);
            let bits = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << bit };
            self.words[c as usize / 64] |= bits;
            c += n;
        }
    }

    /// The last set CPU, or None.
    pub fn last(&self) -> Option<u32> {
        let w = self.words.iter().rposition(|&w| w != 0)?;
        Some(w as u32 * 64 + 63 - self.words[w].leading_zeros())
    }

    #[inline]
    pub fn set(&mut self, cpu: u32) {
        self.words[cpu as usize / 64] |= 1 << (cpu % 64);
    }

    #[inline]
    pub fn clear(&mut self, cpu: u32) {
        self.words[cpu as usize / 64] &= !(1 << (cpu % 64));
    }

    #[inline]
    pub fn test(&self, cpu: u32) -> bool {
        self.words.get(cpu as usize / 64).is_some_and(|w| w >> (cpu % 64) & 1 != 0)
    }

    /// `cpumask_weight()`.
    pub fn weight(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// `cpumask_first()`, or None.
    pub fn first(&self) -> Option<u32> {
        self.next_from(0)
    }

    /// The first set CPU at or after `from`.
    #[inline]
    pub fn next_from(&self, from: u32) -> Option<u32> {
        let mut w = from as usize / 64;
        if w >= self.words.len() {
            return None;
        }
        let mut word = self.words[w] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(w as u32 * 64 + word.trailing_zeros());
            }
            w += 1;
            if w == self.words.len() {
                return None;
            }
            word = self.words[w];
        }
    }

    /// Set CPUs in id order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.next_from(0);
        std::iter::from_fn(move || {
            let c = next?;
            next = self.next_from(c + 1);
            Some(c)
        })
    }

    /// `for_each_cpu_wrap(cpu, mask, start)`: from `start` up, then from 0 to `start`.
    pub fn iter_wrap(&self, start: u32) -> impl Iterator<Item = u32> + '_ {
        let a = self.iter().filter(move |&c| c >= start);
        let b = self.iter().filter(move |&c| c < start);
        a.chain(b)
    }

    /// `cpumask_subset(self, other)`.
    pub fn subset_of(&self, other: &Mask) -> bool {
        self.words.iter().zip(&other.words).all(|(a, b)| a & !b == 0)
    }

    /// `cpumask_intersects()`.
    pub fn intersects(&self, other: &Mask) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// `cpumask_and()` into self.
    pub fn and_with(&mut self, other: &Mask) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// `cpumask_or()` into self.
    pub fn or_with(&mut self, other: &Mask) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    pub fn copy_from(&mut self, other: &Mask) {
        self.words.copy_from_slice(&other.words);
    }

    /// The mask as the kernel prints a cpulist (`%*pbl`): ranges and single CPUs in id
    /// order, comma-separated ("0-7,16-23", "5").
    pub fn cpulist(&self) -> String {
        let mut out = String::new();
        let mut it = self.iter().peekable();
        while let Some(a) = it.next() {
            let mut b = a;
            while it.peek() == Some(&(b + 1)) {
                b += 1;
                it.next();
            }
            if !out.is_empty() {
                out.push(',');
            }
            if a == b {
                out.push_str(&a.to_string());
            } else {
                out.push_str(&format!("{a}-{b}"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Mask;

    #[test]
    fn wrap_starts_at_the_given_cpu() {
        let mut m = Mask::empty(130);
        for c in [1, 5, 64, 129] {
            m.set(c);
        }
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![1, 5, 64, 129]);
        assert_eq!(m.iter_wrap(6).collect::<Vec<_>>(), vec![64, 129, 1, 5]);
        assert_eq!(m.weight(), 4);
        assert_eq!(m.next_from(65), Some(129));
        assert!(Mask::range(130, 1, 1).subset_of(&m));
        assert!(!Mask::range(130, 0, 2).subset_of(&m));
    }

    #[test]
    fn cpulists_print_as_the_kernel_prints_them() {
        let mut m = Mask::range(130, 0, 8);
        m.or_with(&Mask::range(130, 16, 8));
        m.set(129);
        assert_eq!(m.cpulist(), "0-7,16-23,129");
        assert_eq!(Mask::range(130, 5, 1).cpulist(), "5");
        assert_eq!(Mask::empty(4).cpulist(), "");
        let r = Mask::range(200, 60, 80);
        assert_eq!((r.cpulist(), r.weight(), r.first(), r.last()), ("60-139".to_string(), 80, Some(60), Some(139)));
        assert_eq!(Mask::range(128, 0, 128).weight(), 128);
    }
}
