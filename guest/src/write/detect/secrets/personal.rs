//! Sensitive personal data: national identifiers (by format and check
//! digit, see `checksums`), payment cards, bank accounts, phone and
//! passport numbers, health conditions, e-mail addresses.

use super::checksums as ck;
use super::finding::{dedup, finding, Family, Finding};
use super::scan::{b, is_alnum, keyword_hits, run};
use crate::analysis::cues::{find_any, fold};
use crate::core::config::WritePolicy;

/// Sensitive personal data in `text`.
pub fn find_personal_with(text: &str, wp: &WritePolicy) -> Vec<Finding> {
    personal_in(text, &fold(text), wp)
}

pub(super) fn personal_in(text: &str, folded: &str, wp: &WritePolicy) -> Vec<Finding> {
    let mut out = Vec::new();
    numbers(text, folded, wp, &mut out);
    alnum_ids(text, folded, wp, &mut out);
    document_numbers(text, folded, wp, &mut out);
    // One health finding is enough to gate; report the first.
    if let Some(h) = find_any(folded, wp.cues.health, wp.wildcard_max_gap_chars).first() {
        out.push(Finding {
            family: Family::Health,
            label: "health condition",
            hint: format!("'{}'", h.cue),
            start: h.start,
            end: h.end,
        });
    }
    emails(text, &mut out);
    dedup(out)
}

/// A run of digits, optionally grouped by single spaces, dashes or dots
/// ("6217 0012 3456", "138-1234-5678", "512.44.7302"), with an optional
/// final X (Chinese resident IDs).
struct DigitRun {
    start: usize,
    end: usize,
    digits: String,
    /// Lengths of the groups, in order ([3, 2, 4] for "078-05-1120").
    groups: Vec<usize>,
    /// The separator, when every group is split by the same one.
    sep: Option<u8>,
    /// Groups split by dots: only the dotted SSN shape reads as an ID
    /// (versions, IP addresses and dates use dots too).
    dotted: bool,
}

impl DigitRun {
    fn shape(&self, groups: &[usize]) -> bool {
        self.groups == groups
    }
}

/// Digit runs in `text`, in one pass.
fn digit_runs(text: &str) -> Vec<DigitRun> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts = b(text, i).is_some_and(|c| c.is_ascii_digit())
            && (i == 0
                || !b(text, i - 1)
                    .is_some_and(|p| p.is_ascii_alphanumeric() || p == b'.' || p == b','));
        if !starts {
            i += 1;
            continue;
        }
        let mut run = DigitRun {
            start: i,
            end: i,
            digits: String::new(),
            groups: vec![0],
            sep: None,
            dotted: false,
        };
        let mut seps: Vec<u8> = Vec::new();
        let mut j = i;
        loop {
            match b(text, j) {
                Some(d) if d.is_ascii_digit() => {
                    run.digits.push(d as char);
                    if let Some(g) = run.groups.last_mut() {
                        *g += 1;
                    }
                    j += 1;
                }
                Some(s @ (b' ' | b'-' | b'.'))
                    if b(text, j + 1).is_some_and(|d| d.is_ascii_digit()) =>
                {
                    seps.push(s);
                    run.groups.push(0);
                    j += 1;
                }
                Some(b'x' | b'X') if run.digits.len() == 17 => {
                    run.digits.push('X');
                    j += 1;
                    break;
                }
                _ => break,
            }
        }
        run.end = j;
        run.dotted = seps.contains(&b'.');
        run.sep = seps
            .first()
            .copied()
            .filter(|s| seps.iter().all(|x| x == s));
        // A decimal or a thousands group continues a number: not an identifier.
        let continues = matches!(b(text, j), Some(b'.' | b','))
            && b(text, j + 1).is_some_and(|d| d.is_ascii_digit());
        // Fewer than six digits is no personal number (years, counts).
        if !is_alnum(b(text, j)) && !continues && run.digits.len() >= 6 {
            out.push(run);
        }
        i = j.max(i + 1);
    }
    out
}

/// Does one of `keywords` end within `window` characters before byte `at`?
fn keyword_before(
    folded: &str,
    at: usize,
    keywords: &'static [&'static str],
    window: usize,
) -> Option<&'static str> {
    let before = folded.get(..at)?;
    // One walk back: far enough for the longest keyword to end in the window.
    const LONGEST: usize = 32;
    let start = before
        .char_indices()
        .rev()
        .nth(window + LONGEST - 1)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let near = before.get(start..)?;
    keywords.iter().copied().find(|k| {
        near.match_indices(k).any(|(i, _)| {
            let e = i + k.len();
            let letter = |j: usize| near.as_bytes().get(j).is_some_and(u8::is_ascii_alphabetic);
            let ends_near = near
                .get(e..)
                .is_some_and(|rest| rest.chars().count() <= window);
            ends_near
                && (!k.bytes().all(|c| c.is_ascii_alphabetic())
                    || ((i == 0 || !letter(i.wrapping_sub(1))) && !letter(e)))
        })
    })
}

/// The national identifier a digit run is, by its grouping and check digit:
/// a scheme name. Weak checks (one chance in ten) need the scheme's usual
/// grouping; dated formats stand alone. (A TFN, grouped like a SIN, needs
/// its keyword: see `keyed_id`.)
fn digit_id(r: &DigitRun) -> Option<&'static str> {
    let d = r.digits.as_str();
    let n = d.len();
    let dash = r.sep == Some(b'-');
    let compact = r.groups.len() == 1;
    if r.dotted {
        return (r.shape(&[3, 2, 4]) && ck::us_ssn(d)).then_some("US SSN");
    }
    // Chinese mobile numbers share the 11-digit length with PESEL and
    // Steuer-ID; they are found as phone numbers.
    let cn_mobile = n == 11 && d.starts_with('1') && matches!(d.as_bytes()[1], b'3'..=b'9');
    match n {
        18 if ck::cn_resident_id(d) => Some("Chinese resident ID"),
        9 if r.shape(&[3, 2, 4]) && ck::us_ssn(d) => Some("US SSN"),
        9 if r.shape(&[3, 2, 4]) && ck::us_itin(d) => Some("US ITIN"),
        12 if r.shape(&[4, 4, 4]) && ck::aadhaar(d) => Some("Aadhaar"),
        9 if r.shape(&[3, 3, 3]) && ck::ca_sin(d) => Some("Canadian SIN"),
        13 if dash && r.shape(&[6, 7]) && ck::kr_rrn(d, false) => Some("Korean RRN"),
        13 if compact && ck::kr_rrn(d, true) => Some("Korean RRN"),
        13 if compact && ck::za_id(d) => Some("South African ID number"),
        12 if dash && r.shape(&[3, 3, 3, 3]) && ck::ph_tin(d) => Some("Philippine TIN"),
        9 if dash && r.shape(&[3, 3, 3]) && ck::ph_tin(d) => Some("Philippine TIN"),
        10 if dash && r.shape(&[6, 4]) && ck::se_personnummer(d) => Some("Swedish personnummer"),
        12 if dash && r.shape(&[8, 4]) && ck::se_personnummer(&d[2..]) => {
            Some("Swedish personnummer")
        }
        11 if compact && !cn_mobile && ck::pesel(d) => Some("PESEL"),
        11 if compact && !cn_mobile && ck::de_steuer_id(d) => Some("Steuer-ID"),
        11 if compact && !cn_mobile && ck::ee_isikukood(d) => Some("Estonian isikukood"),
        _ => None,
    }
}

/// What an ID keyword before a number says about it. A keyword naming a
/// scheme with a check ("SIN", "Aadhaar", "PESEL", "SSN") brings that
/// check: a number failing it is not that identifier. Other keywords
/// ("身份证", "national ID", "tax id") vouch for any number of ID length.
enum Keyed {
    Scheme(&'static str),
    Disproved,
    Generic,
}

fn keyed_id(keyword: &str, d: &str) -> Keyed {
    let personnummer = |d: &str| match d.len() {
        12 => ck::se_personnummer(&d[2..]),
        _ => ck::se_personnummer(d),
    };
    let (scheme, valid) = match keyword {
        "sin" | "social insurance" => ("Canadian SIN", ck::ca_sin(d)),
        "aadhaar" | "aadhar" => ("Aadhaar", ck::aadhaar(d)),
        "pesel" => ("PESEL", ck::pesel(d)),
        "tax file number" | "tfn" => ("Australian TFN", ck::au_tfn(d)),
        "steuer-id" | "steuer id" | "steueridentifikationsnummer" | "identifikationsnummer" => {
            ("Steuer-ID", ck::de_steuer_id(d))
        }
        "personnummer" => ("Swedish personnummer", personnummer(d)),
        "isikukood" => ("Estonian isikukood", ck::ee_isikukood(d)),
        "ssn" | "social security" => ("US SSN", ck::us_ssn(d)),
        "itin" => ("US ITIN", ck::us_itin(d)),
        "nhs" => ("UK NHS number", ck::uk_nhs(d)),
        "resident registration" | "주민등록번호" => ("Korean RRN", ck::kr_rrn(d, false)),
        // "TIN" names the Philippine number and other countries' taxpayer
        // numbers: a failed Philippine check does not disprove it.
        "tin" | "bir" if ck::ph_tin(d) => ("Philippine TIN", true),
        "south african id" | "rsa id" => ("South African ID number", ck::za_id(d)),
        _ => return Keyed::Generic,
    };
    if valid {
        Keyed::Scheme(scheme)
    } else {
        Keyed::Disproved
    }
}

/// ID numbers, card numbers, bank account numbers and phone numbers.
fn numbers(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let cues = wp.cues;
    let w = wp.keyword_window_chars;
    for r in digit_runs(text) {
        let (s, e, d) = (r.start, r.end, r.digits.as_str());
        let n = d.len();
        let plus = s > 0 && b(text, s - 1) == Some(b'+');
        let id = |hint: String| finding(Family::NationalId, "national ID number", hint, s, e);
        if let Some(scheme) = digit_id(&r) {
            out.push(id(format!("{scheme}, format and check digit valid")));
            continue;
        } else if r.dotted {
            continue;
        }
        let near = |keywords| keyword_before(folded, s, keywords, w);
        let id_kw = near(cues.id_keywords);
        let card_kw = near(cues.card_keywords);
        let account_kw = near(cues.bank_account_keywords);
        let phone_kw = near(cues.phone_keywords);
        let keyed = id_kw.map(|k| (k, keyed_id(k, d)));
        if let Some((k, Keyed::Scheme(scheme))) = keyed {
            out.push(id(format!("{scheme} after '{k}'")));
        } else if let (Some((k, Keyed::Generic)), true) = (keyed, (8..=18).contains(&n)) {
            out.push(id(format!("after '{k}'")));
        } else if (12..=19).contains(&n) && ck::card(d) {
            out.push(finding(
                Family::PaymentCard,
                "payment card number",
                "issuer prefix and Luhn valid".into(),
                s,
                e,
            ));
        } else if let (Some(k), true) = (card_kw, (12..=19).contains(&n)) {
            // Not Luhn-checked: some domestic bank cards do not follow it,
            // and a mistyped card number the user calls theirs is still one.
            out.push(finding(
                Family::PaymentCard,
                "bank card number",
                format!("after '{k}'"),
                s,
                e,
            ));
        } else if let (Some(k), true) = (account_kw, (6..=19).contains(&n)) {
            out.push(finding(
                Family::BankAccount,
                "bank account number",
                format!("after '{k}'"),
                s,
                e,
            ));
        } else if (n == 11 && d.starts_with('1') && matches!(d.as_bytes()[1], b'3'..=b'9'))
            || (n == 13 && d.starts_with("861") && matches!(d.as_bytes()[3], b'3'..=b'9'))
            || (plus && (8..=15).contains(&n))
        {
            out.push(finding(
                Family::PhoneNumber,
                "phone number",
                "mobile format".into(),
                if plus { s - 1 } else { s },
                e,
            ));
        } else if let (Some(k), true) = (phone_kw, (7..=15).contains(&n)) {
            out.push(finding(
                Family::PhoneNumber,
                "phone number",
                format!("after '{k}'"),
                s,
                e,
            ));
        }
    }
}

/// Identifiers with letters, found word by word: IBAN (possibly in groups
/// of four), UK NINO (possibly spaced), Singapore NRIC/FIN, Italian codice
/// fiscale, Spanish NIF/NIE, Finnish HETU. Each by format and check; a
/// compact NINO, which has no check character and shares its shape with
/// product codes, only after an ID keyword.
fn alnum_ids(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let words = ascii_words(text);
    for (k, &(s, e)) in words.iter().enumerate() {
        let w = &text[s..e];
        // Only the lengths of a scheme are upper-cased and checked.
        let upper = match w.len() {
            9 | 10 | 12 | 16 => w.to_ascii_uppercase(),
            _ => String::new(),
        };
        let keyword = || keyword_before(folded, s, wp.cues.id_keywords, wp.keyword_window_chars);
        let found = match upper.len() {
            9 if ck::sg_nric(&upper) => Some(("Singapore NRIC/FIN", e)),
            // Its keyword vouches for a FIN whose check letter cannot be
            // verified (series with unpublished tables, typos).
            9 if ck::sg_nric_shape(&upper)
                && keyword().is_some_and(|k| matches!(k, "nric" | "fin")) =>
            {
                Some(("Singapore NRIC/FIN", e))
            }
            12 if ck::de_rvnr(&upper) => Some(("German pension insurance number", e)),
            9 if ck::es_nif(&upper) && w.bytes().any(|c| c.is_ascii_digit()) => {
                Some(("Spanish NIF/NIE", e))
            }
            9 if ck::uk_nino(&upper)
                && keyword_before(folded, s, wp.cues.id_keywords, wp.keyword_window_chars)
                    .is_some() =>
            {
                Some(("UK National Insurance number", e))
            }
            16 if ck::it_codice_fiscale(&upper) => Some(("Italian codice fiscale", e)),
            10 if ck::in_pan(&upper)
                && keyword_before(folded, s, wp.cues.id_keywords, wp.keyword_window_chars)
                    .is_some() =>
            {
                Some(("Indian PAN", e))
            }
            _ => None,
        }
        .or_else(|| grouped_iban(text, &words[k..]).map(|end| ("IBAN", end)))
        .or_else(|| spaced_nino(text, &words[k..]).map(|end| ("UK National Insurance number", end)))
        .or_else(|| {
            spaced_rvnr(text, &words[k..]).map(|end| ("German pension insurance number", end))
        })
        .or_else(|| {
            let date_first =
                w.len() == 11 || (w.len() == 6 && w.bytes().all(|c| c.is_ascii_digit()));
            date_first
                .then(|| hetu_at(text, s))
                .flatten()
                .map(|end| ("Finnish HETU", end))
        });
        if let Some((scheme, end)) = found {
            let (family, label) = if scheme == "IBAN" {
                (Family::BankAccount, "bank account number (IBAN)")
            } else {
                (Family::NationalId, "national ID number")
            };
            out.push(finding(
                family,
                label,
                format!("{scheme}, format and check valid"),
                s,
                end,
            ));
        }
    }
}

/// Maximal runs of ASCII letters and digits: (start, end).
fn ascii_words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if is_alnum(b(text, i)) {
            let e = run(text, i, |c| c.is_ascii_alphanumeric());
            out.push((i, e));
            i = e;
        } else {
            i += 1;
        }
    }
    out
}

/// Words joined by single spaces, from the first, while `keep` accepts the
/// joined text so far: the end of each accepted prefix, and its text.
fn joined(text: &str, words: &[(usize, usize)], max: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut compact = String::new();
    let mut prev_end = None;
    for &(s, e) in words.iter().take(max) {
        if prev_end.is_some_and(|p: usize| s != p + 1 || b(text, p) != Some(b' ')) {
            break;
        }
        compact.push_str(&text[s..e].to_ascii_uppercase());
        out.push((e, compact.clone()));
        prev_end = Some(e);
    }
    out
}

/// An IBAN starting at the first word, compact or in groups.
fn grouped_iban(text: &str, words: &[(usize, usize)]) -> Option<usize> {
    let &(s, e) = words.first()?;
    let head = text.get(s..e)?.as_bytes();
    let country_ok = head.len() >= 4
        && head[..2].iter().all(u8::is_ascii_uppercase)
        && head[2..4].iter().all(u8::is_ascii_digit);
    if !country_ok {
        return None;
    }
    let want = ck::iban_length(text.get(s..s + 2)?)?;
    joined(text, words, 9)
        .into_iter()
        .find(|(_, c)| c.len() == want && ck::iban(c))
        .map(|(end, _)| end)
}

/// A NINO written in groups ("AB 12 34 56 C").
fn spaced_nino(text: &str, words: &[(usize, usize)]) -> Option<usize> {
    let &(s, e) = words.first()?;
    let two_capitals = e - s == 2 && text.as_bytes()[s..e].iter().all(u8::is_ascii_uppercase);
    if !two_capitals {
        return None;
    }
    joined(text, words, 5)
        .into_iter()
        .find(|(_, c)| c.len() == 9 && ck::uk_nino(c))
        .map(|(end, _)| end)
}

/// A German pension insurance number written in groups ("65 170839 J 003").
fn spaced_rvnr(text: &str, words: &[(usize, usize)]) -> Option<usize> {
    let &(s, e) = words.first()?;
    if e - s != 2 || !text.as_bytes()[s..e].iter().all(u8::is_ascii_digit) {
        return None;
    }
    joined(text, words, 5)
        .into_iter()
        .find(|(_, c)| c.len() == 12 && ck::de_rvnr(c))
        .map(|(end, _)| end)
}

/// A Finnish HETU starting at `s` ("170390-427C"): its end.
fn hetu_at(text: &str, s: usize) -> Option<usize> {
    let e = s + 11;
    let v = text.get(s..e)?;
    (ck::fi_hetu(&v.to_ascii_uppercase()) && !is_alnum(b(text, e))).then_some(e)
}

/// Document numbers after their keyword: passports and licences, and
/// health identifiers (medical record, insurance member, Medicare numbers).
fn document_numbers(text: &str, folded: &str, wp: &WritePolicy, out: &mut Vec<Finding>) {
    let kinds = [
        (
            wp.cues.passport_keywords,
            Family::PassportNumber,
            "passport or licence number",
        ),
        (
            wp.cues.health_id_keywords,
            Family::Health,
            "health identifier",
        ),
    ];
    for (keywords, family, label) in kinds {
        document_number(text, folded, wp, keywords, (family, label), out);
    }
}

fn document_number(
    text: &str,
    folded: &str,
    wp: &WritePolicy,
    keywords: &'static [&'static str],
    (family, label): (Family, &'static str),
    out: &mut Vec<Finding>,
) {
    for h in keyword_hits(folded, keywords) {
        let limit = text.len().min(h.end + wp.keyword_window_chars * 3);
        let mut i = h.end;
        while i < limit {
            if !is_alnum(b(text, i)) || (i > 0 && is_alnum(b(text, i - 1))) {
                i += 1;
                continue;
            }
            // Licence numbers come in hyphenated groups ("D1234-56789-01");
            // a date ("2026-09-10") is no document number.
            let mut e = run(text, i, |c| c.is_ascii_alphanumeric() || c == b'-');
            while e > i && b(text, e - 1) == Some(b'-') {
                e -= 1;
            }
            // Licence digit groups split by single spaces ("123 456 789");
            // health numbers in groups carry a check, see `numbers`.
            while family == Family::PassportNumber
                && text
                    .get(i..e)
                    .is_some_and(|v| v.bytes().all(|c| c.is_ascii_digit() || c == b' '))
                && b(text, e) == Some(b' ')
                && b(text, e + 1).is_some_and(|c| c.is_ascii_digit())
            {
                e = run(text, e + 1, |c| c.is_ascii_digit());
            }
            let v = text.get(i..e).unwrap_or("");
            let digits = v.bytes().filter(u8::is_ascii_digit).count();
            let groups: Vec<usize> = v.split(['-', ' ']).map(str::len).collect();
            let date_like = groups == [4, 2, 2] || groups == [4, 2];
            // Licence numbers run from 6 to 16 characters (one letter and
            // twelve digits in Florida, nine digits in many states).
            let fits = if groups.len() > 1 {
                v.len() <= 24 && !date_like
            } else {
                (6..=16).contains(&v.len())
            };
            // Grouped numbers ("1EG4-TE5-MK73") carry fewer digits.
            // A German passport number has few digits but a strict alphabet.
            let enough = digits >= 6
                || (groups.len() > 1 && digits >= 4)
                || (family == Family::PassportNumber && ck::de_passport(v));
            if fits && enough {
                out.push(finding(
                    family,
                    label,
                    format!("after '{}'", text.get(h.start..h.end).unwrap_or(h.cue)),
                    i,
                    e,
                ));
                break;
            }
            i = e;
        }
    }
}

/// E-mail addresses (personal, not gated).
fn emails(text: &str, out: &mut Vec<Finding>) {
    for (i, _) in text.match_indices('@') {
        let mut s = i;
        while s > 0
            && b(text, s - 1).is_some_and(|c| {
                c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-')
            })
        {
            s -= 1;
        }
        let e = run(text, i + 1, |c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
        });
        let domain = text.get(i + 1..e).unwrap_or("").trim_end_matches('.');
        let in_url = s > 0 && matches!(b(text, s - 1), Some(b':' | b'/'));
        if s < i && !in_url && domain.contains('.') && !domain.starts_with('.') {
            out.push(finding(
                Family::EmailAddress,
                "e-mail address",
                String::new(),
                s,
                i + 1 + domain.len(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::detect::secrets::find_personal;

    fn personal(text: &str) -> Vec<&'static str> {
        find_personal(text)
            .into_iter()
            .map(|f| f.family.name())
            .collect()
    }

    #[test]
    fn national_id_checksum() {
        // A valid GB 11643 number (check digit X) and the same with a wrong check digit.
        assert_eq!(
            personal("身份证 11010519491231002X 请收好"),
            vec!["national-id"]
        );
        assert_eq!(personal("号码 110105194912310021"), Vec::<&str>::new());
        assert_eq!(personal("身份证号 110105194912310021"), vec!["national-id"]);
        assert_eq!(
            personal("My SSN is 512-44-7302, use it"),
            vec!["national-id"]
        );
        assert_eq!(personal("ticket 512-44-7302"), vec!["national-id"]);
        // A number the SSA voided is no one's SSN.
        assert!(personal("ticket 078-05-1120").is_empty());
        assert!(personal("call 2026-05-11 at 3").is_empty());
    }

    /// The hint of the only national-ID or bank finding in `text`.
    fn id_hint(text: &str) -> String {
        let f: Vec<Finding> = find_personal(text)
            .into_iter()
            .filter(|f| matches!(f.family, Family::NationalId | Family::BankAccount))
            .collect();
        assert_eq!(f.len(), 1, "{text:?}: {f:?}");
        f[0].hint.clone()
    }

    #[test]
    fn identifiers_found_by_format_and_check() {
        // Valid numbers (check digits computed by hand or by the scheme's
        // rule), each in its usual written form and without a keyword.
        for (text, scheme) in [
            ("pay to NL91 ABNA 0417 1643 00 today", "IBAN"),
            ("IBAN GB82WEST12345698765432", "IBAN"),
            ("holder 512.44.7302 on file", "US SSN"),
            ("holder 512 44 7302 on file", "US SSN"),
            ("holder 512-44-7302 on file", "US SSN"),
            ("UID 3675 9834 6016 verified", "Aadhaar"),
            ("number 270 042 138 on the T4", "Canadian SIN"),
            ("번호 900101-1234568 확인", "Korean RRN"),
            ("klient 85071412341", "PESEL"),
            ("pass T0412345F issued", "Singapore NRIC/FIN"),
            ("FIN G1234567X", "Singapore NRIC/FIN"),
            ("CF RSSMRA85T10A562S", "Italian codice fiscale"),
            ("factura 73482915P", "Spanish NIF/NIE"),
            ("NIE Y2345678Z", "Spanish NIF/NIE"),
            ("id 900214-1233", "Swedish personnummer"),
            ("tunnus 131052-308T", "Finnish HETU"),
            ("IdNr 86509127455", "Steuer-ID"),
            ("NI JM 52 81 06 C", "UK National Insurance number"),
            ("taxpayer 912-70-1234", "US ITIN"),
            ("record 8001015009087 on file", "South African ID number"),
            ("TIN 123-456-782-000 on the form", "Philippine TIN"),
            ("filed 123-456-782-000 today", "Philippine TIN"),
            (
                "Versicherungsnummer 15070649C103",
                "German pension insurance number",
            ),
            ("SV 15 070649 C 103", "German pension insurance number"),
            ("my fin is m1234567k", "Singapore NRIC/FIN"),
            ("FIN: m1234567x for the visa", "Singapore NRIC/FIN"),
        ] {
            let hint = id_hint(text);
            assert!(hint.starts_with(scheme), "{text:?}: {hint}");
        }
    }

    #[test]
    fn invalid_check_digits_are_not_identifiers() {
        // The same numbers with one check character changed.
        for text in [
            "pay to NL92 ABNA 0417 1643 00 today",
            "UID 3675 9834 6017 verified",
            "number 270 042 139 on the T4",
            "klient 85071412342",
            "pass T0412345G issued",
            "CF RSSMRA85T10A562T",
            "factura 73482915Q",
            "id 900214-1234",
            "tunnus 131052-308U",
            "IdNr 86509127456",
            "holder 666-44-7302 on file",
            "order 8001015009085 shipped",
            "invoice 123-456-789-001 paid",
            "code 15070649C104 printed",
            "part M1234567X restocked",
        ] {
            assert!(
                personal(text).is_empty(),
                "{text:?}: {:?}",
                find_personal(text)
            );
        }
    }

    #[test]
    fn scheme_keywords_bring_their_check() {
        assert!(id_hint("My SIN is 270042138").starts_with("Canadian SIN after 'sin'"));
        assert!(personal("My SIN is 270042139").is_empty());
        assert!(id_hint("tax file number 123456782").starts_with("Australian TFN"));
        assert!(personal("tax file number 123456783").is_empty());
        assert!(id_hint("Aadhaar: 367598346016").starts_with("Aadhaar"));
        assert!(id_hint("NHS number 943 476 5919").starts_with("UK NHS number"));
        assert!(personal("NHS number 943 476 5918").is_empty());
        assert!(id_hint("PAN ABCPE1234F").starts_with("Indian PAN"));
        assert!(personal("SKU ABCPE1234F").is_empty());
        // A product code shaped like a NINO needs the keyword.
        assert!(personal("SKU JM528106C restocked").is_empty());
        assert!(id_hint("National Insurance number JM528106C").starts_with("UK National"));
        // Generic ID keywords vouch for any number of ID length.
        assert_eq!(personal("身份证号 110105194912310021"), vec!["national-id"]);
    }

    #[test]
    fn cards_by_luhn_or_keyword() {
        assert_eq!(
            personal("charge 4111 1111 1111 1111 today"),
            vec!["payment-card"]
        );
        // Luhn-valid or not, a number the user calls a card is one.
        assert_eq!(
            personal("我银行卡号 6217 0012 3456 7890 123，工资发这张"),
            vec!["payment-card"]
        );
        // Without a keyword, only an issuer prefix with a valid Luhn digit.
        assert!(personal("ref 6217 0012 3456 7890 123").is_empty());
        assert_eq!(
            personal("ref 6217 0012 3456 7890 122"),
            vec!["payment-card"]
        );
        // A bank account number has no check: its keyword is enough.
        assert_eq!(
            personal("My bank account number is 40021875"),
            vec!["bank-account"]
        );
        assert!(personal("order 4111111111111112 shipped").is_empty());
    }

    #[test]
    fn estonian_codes_and_german_passports_by_their_structure() {
        assert_eq!(
            personal("Minu isikukood on 60911258021."),
            vec!["national-id"]
        );
        assert_eq!(personal("isikukood: 37605030299"), vec!["national-id"]);
        // The check digit fails: not a personal code.
        let hints: Vec<String> = find_personal("order 60911258022 shipped")
            .into_iter()
            .map(|f| f.hint)
            .collect();
        assert!(hints.iter().all(|h| !h.contains("isikukood")), "{hints:?}");
        assert_eq!(
            personal("Reisepass-Nr.: GC8MG0PRH"),
            vec!["passport-number"]
        );
        assert_eq!(
            personal("passport C01X00T478, valid until 2031"),
            vec!["passport-number"]
        );
        // Not the passport alphabet (a vowel), too few digits for any other.
        assert!(personal("Reisepass-Nr.: GA8MGOPRH").is_empty());
    }

    #[test]
    fn phones_passports_health() {
        assert_eq!(personal("我的手机 13812345678"), vec!["phone-number"]);
        assert_eq!(
            personal("call +44 20 7946 0958 tomorrow"),
            vec!["phone-number"]
        );
        assert_eq!(
            personal("Remember my passport number is X48217735"),
            vec!["passport-number"]
        );
        for t in [
            "DL# D123456789012, issued in Ohio",
            "my driver license number is 123 456 789",
            "Driver's lic: A1234567",
            "Put my driving permit 912345678 on the booking",
        ] {
            assert_eq!(personal(t), vec!["passport-number"], "{t}");
        }
        for t in ["driver version 535.104 installed", "DL 2026-09-10 deadline"] {
            assert!(personal(t).is_empty(), "{t}: {:?}", find_personal(t));
        }
        assert_eq!(personal("我有糖尿病，饭后要吃药"), vec!["health"]);
        assert_eq!(personal("I was diagnosed with asthma"), vec!["health"]);
        assert_eq!(personal("member MBI 1EG4-TE5-MK73 on file"), vec!["health"]);
        assert_eq!(personal("病历号 ZY20260817 已归档"), vec!["health"]);
        assert_eq!(
            personal("mail me at li.wei@example.com"),
            vec!["email-address"]
        );
        for t in [
            "2026-03-31 发放 3 月工资共 1,284 人",
            "工单 AS-30917 于 2026-02-03 创建",
            "门诊药房营业时间为 8:00–20:00",
            "processed 18.4M records in 52 min",
            "2025-10-21 04:18 对账任务",
        ] {
            assert!(personal(t).is_empty(), "{t:?}: {:?}", find_personal(t));
        }
    }
}
