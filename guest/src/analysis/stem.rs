//! The Porter stemmer (M. F. Porter, 1980, with the two departures of the
//! reference C implementation: `bli`→`ble` and `logi`→`log`), hand-written
//! so the component carries no stemming crate. Only lowercase ASCII
//! alphabetic words are stemmed; anything else is returned unchanged.

/// The stem of a lowercase word.
pub fn stem(word: &str) -> String {
    if word.len() <= 2 || !word.bytes().all(|c| c.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut s = Stemmer {
        b: word.as_bytes().to_vec(),
        k: word.len() - 1,
        j: 0,
    };
    s.step1ab();
    if s.k > 0 {
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
    }
    s.b.truncate(s.k + 1);
    String::from_utf8(s.b).unwrap_or_else(|_| word.to_string())
}

struct Stemmer {
    b: Vec<u8>,
    /// Index of the last letter of the current word.
    k: usize,
    /// Length of the stem before the last matched suffix.
    j: usize,
}

impl Stemmer {
    /// Is b[i] a consonant?
    fn cons(&self, i: usize) -> bool {
        match self.b[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.cons(i - 1),
            _ => true,
        }
    }

    /// The measure m of b[0..j): the number of VC sequences.
    fn m(&self) -> usize {
        let end = self.j;
        let mut n = 0;
        let mut i = 0;
        loop {
            if i >= end {
                return n;
            }
            if !self.cons(i) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i >= end {
                    return n;
                }
                if self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i >= end {
                    return n;
                }
                if !self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    /// Does b[0..j) contain a vowel?
    fn vowel_in_stem(&self) -> bool {
        (0..self.j).any(|i| !self.cons(i))
    }

    /// Is b[i-1..=i] a double consonant?
    fn doublec(&self, i: usize) -> bool {
        i >= 1 && self.b[i] == self.b[i - 1] && self.cons(i)
    }

    /// consonant-vowel-consonant ending at i, the last not w, x or y.
    fn cvc(&self, i: usize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.b[i], b'w' | b'x' | b'y')
    }

    /// Does b[0..=k] end with `s`? Sets `j` to the stem length before it.
    fn ends(&mut self, s: &str) -> bool {
        let s = s.as_bytes();
        let len = self.k + 1;
        if s.len() > len || &self.b[len - s.len()..len] != s {
            return false;
        }
        self.j = len - s.len();
        true
    }

    /// Replace b[j..=k] by `s`.
    fn setto(&mut self, s: &str) {
        self.b.truncate(self.j);
        self.b.extend_from_slice(s.as_bytes());
        // A non-empty result is guaranteed by callers (stems keep ≥1 letter).
        self.k = self.b.len().saturating_sub(1);
    }

    fn r(&mut self, s: &str) {
        if self.m() > 0 {
            self.setto(s);
        }
    }

    fn step1ab(&mut self) {
        if self.b[self.k] == b's' {
            if self.ends("sses") {
                self.k -= 2;
            } else if self.ends("ies") {
                self.setto("i");
            } else if self.k >= 1 && self.b[self.k - 1] != b's' {
                self.k -= 1;
            }
        }
        self.b.truncate(self.k + 1);
        if self.ends("eed") {
            if self.m() > 0 {
                self.k -= 1;
            }
        } else if (self.ends("ed") || self.ends("ing")) && self.vowel_in_stem() {
            self.k = self.j - 1;
            self.b.truncate(self.k + 1);
            if self.ends("at") {
                self.setto("ate");
            } else if self.ends("bl") {
                self.setto("ble");
            } else if self.ends("iz") {
                self.setto("ize");
            } else if self.doublec(self.k) {
                if !matches!(self.b[self.k], b'l' | b's' | b'z') {
                    self.k -= 1;
                }
            } else {
                self.j = self.k + 1;
                if self.m() == 1 && self.cvc(self.k) {
                    self.setto_end("e");
                }
            }
        }
        self.b.truncate(self.k + 1);
    }

    /// Append `s` after b[0..=k].
    fn setto_end(&mut self, s: &str) {
        self.b.truncate(self.k + 1);
        self.b.extend_from_slice(s.as_bytes());
        self.k = self.b.len() - 1;
    }

    fn step1c(&mut self) {
        if self.ends("y") && self.vowel_in_stem() {
            self.b[self.k] = b'i';
        }
    }

    fn step2(&mut self) {
        if self.k < 1 {
            return;
        }
        const RULES: &[(&str, &str)] = &[
            ("ational", "ate"),
            ("tional", "tion"),
            ("enci", "ence"),
            ("anci", "ance"),
            ("izer", "ize"),
            ("bli", "ble"),
            ("alli", "al"),
            ("entli", "ent"),
            ("eli", "e"),
            ("ousli", "ous"),
            ("ization", "ize"),
            ("ation", "ate"),
            ("ator", "ate"),
            ("alism", "al"),
            ("iveness", "ive"),
            ("fulness", "ful"),
            ("ousness", "ous"),
            ("aliti", "al"),
            ("iviti", "ive"),
            ("biliti", "ble"),
            ("logi", "log"),
        ];
        self.first_rule(RULES);
    }

    fn step3(&mut self) {
        const RULES: &[(&str, &str)] = &[
            ("icate", "ic"),
            ("ative", ""),
            ("alize", "al"),
            ("iciti", "ic"),
            ("ical", "ic"),
            ("ful", ""),
            ("ness", ""),
        ];
        self.first_rule(RULES);
    }

    /// Apply the rule of the first suffix that matches (if m > 0). The
    /// reference implementation dispatches on the penultimate letter so
    /// that at most one suffix of a group is tried; with these lists the
    /// first match in list order is the same suffix it picks.
    fn first_rule(&mut self, rules: &[(&str, &str)]) {
        for (suffix, to) in rules {
            if self.ends(suffix) {
                self.r(to);
                return;
            }
        }
    }

    fn step4(&mut self) {
        if self.k < 1 {
            return;
        }
        const SUFFIXES: &[&str] = &[
            "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
            "ou", "ism", "ate", "iti", "ous", "ive", "ize",
        ];
        let mut found = false;
        for s in SUFFIXES {
            if self.ends(s) {
                if *s == "ion" && !(self.j >= 1 && matches!(self.b[self.j - 1], b's' | b't')) {
                    continue;
                }
                found = true;
                break;
            }
        }
        if found && self.m() > 1 {
            self.k = self.j - 1;
            self.b.truncate(self.k + 1);
        }
    }

    fn step5(&mut self) {
        let k = self.k;
        self.j = k;
        if self.b[k] == b'e' {
            let a = self.m();
            if a > 1 || (a == 1 && k >= 1 && !self.cvc(k - 1)) {
                self.k -= 1;
            }
        } else if self.b[k] == b'l' && self.doublec(k) {
            self.j = k + 1;
            if self.m() > 1 {
                self.k -= 1;
            }
        }
        self.b.truncate(self.k + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn porter_reference_pairs() {
        // From Porter's published vocabulary/output lists.
        let pairs = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("digitizer", "digit"),
            ("conformabli", "conform"),
            ("radicalli", "radic"),
            ("differentli", "differ"),
            ("vileli", "vile"),
            ("analogousli", "analog"),
            ("vietnamization", "vietnam"),
            ("predication", "predic"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("callousness", "callous"),
            ("formaliti", "formal"),
            ("sensitiviti", "sensit"),
            ("sensibiliti", "sensibl"),
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("formalize", "formal"),
            ("electriciti", "electr"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("gyroscopic", "gyroscop"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("homologou", "homolog"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("angulariti", "angular"),
            ("homologous", "homolog"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
            ("generalizations", "gener"),
            ("oscillators", "oscil"),
            ("painting", "paint"),
            ("painted", "paint"),
            ("researching", "research"),
            ("research", "research"),
            ("running", "run"),
            ("adoption", "adopt"),
        ];
        for (w, s) in pairs {
            assert_eq!(stem(w), s, "stem({w})");
        }
    }

    #[test]
    fn leaves_non_words_alone() {
        assert_eq!(stem("v42"), "v42");
        assert_eq!(stem("is"), "is");
        assert_eq!(stem("café"), "café");
        assert_eq!(stem("y"), "y");
        assert_eq!(stem("ies"), "i");
        assert_eq!(stem("eed"), "eed");
        assert_eq!(stem("ing"), "ing");
        assert_eq!(stem("ion"), "ion");
    }
}
