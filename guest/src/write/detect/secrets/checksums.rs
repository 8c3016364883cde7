//! Check digits and formats of payment cards, bank accounts and national
//! identifiers. Each function takes the compact form (separators removed,
//! letters upper-cased) and says whether it is a well-formed number of that
//! scheme; the scanners in `national_ids` decide where to look.

fn digits(s: &str) -> Option<Vec<u32>> {
    s.bytes()
        .map(|c| c.is_ascii_digit().then(|| (c - b'0') as u32))
        .collect()
}

fn num(s: &str, r: std::ops::Range<usize>) -> u32 {
    s.get(r).and_then(|x| x.parse().ok()).unwrap_or(0)
}

/// Luhn (ISO/IEC 7812): cards, Canadian SIN, Swedish personnummer.
pub fn luhn(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(k, &x)| match (k % 2, x * 2) {
            (1, y) if y > 9 => y - 9,
            (1, y) => y,
            _ => x,
        })
        .sum();
    !d.is_empty() && matches!(sum % 10, 0)
}

/// A payment card: Luhn plus an issuer prefix (IIN) that allows its length
/// (Visa 13/16/19, Mastercard 16, Amex 15, Discover, Diners, JCB,
/// UnionPay, Maestro).
pub fn card(s: &str) -> bool {
    let n = s.len();
    let p = |k: usize| num(s, 0..k);
    let ok = match s.as_bytes().first() {
        Some(b'4') => matches!(n, 13 | 16 | 19),
        Some(b'5') => {
            (51..=55).contains(&p(2)) && n == 16
                || p(2) == 50
                || (56..=59).contains(&p(2)) && n >= 12
        }
        Some(b'2') => (2221..=2720).contains(&p(4)) && n == 16,
        Some(b'3') => {
            (matches!(p(2), 34 | 37) && n == 15)
                || ((300..=305).contains(&p(3)) || matches!(p(2), 36 | 38 | 39))
                    && (14..=19).contains(&n)
                || (3528..=3589).contains(&p(4)) && (16..=19).contains(&n)
        }
        Some(b'6') => (16..=19).contains(&n) || (12..=19).contains(&n) && p(2) != 62,
        _ => false,
    };
    ok && luhn(s)
}

/// Verhoeff: the Indian Aadhaar number's check digit.
pub fn verhoeff(s: &str) -> bool {
    const D: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const P: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let Some(d) = digits(s) else { return false };
    let c = d.iter().rev().enumerate().fold(0u8, |c, (i, &x)| {
        D[c as usize][P[i % 8][x as usize] as usize]
    });
    !d.is_empty() && c == 0
}

/// Aadhaar: 12 digits, not starting with 0 or 1, Verhoeff-valid.
pub fn aadhaar(s: &str) -> bool {
    s.len() == 12 && !s.starts_with(['0', '1']) && verhoeff(s)
}

/// Canadian Social Insurance Number: 9 digits, Luhn, not starting 0 or 8.
pub fn ca_sin(s: &str) -> bool {
    s.len() == 9 && !s.starts_with(['0', '8']) && luhn(s)
}

/// US Social Security Number: area 001–899 except 666, group 01–99,
/// serial 0001–9999.
pub fn us_ssn(s: &str) -> bool {
    let (area, group, serial) = (num(s, 0..3), num(s, 3..5), num(s, 5..9));
    // Numbers the SSA voided after they were printed in advertisements,
    // and the textbook example, belong to no one.
    const VOIDED: [&str; 3] = ["078051120", "219099999", "123456789"];
    s.len() == 9
        && digits(s).is_some()
        && (1..=899).contains(&area)
        && area != 666
        && group > 0
        && serial > 0
        && !VOIDED.contains(&s)
}

/// US Individual Taxpayer Identification Number: 9XX-GG-XXXX with the
/// group in 50–65, 70–88, 90–92 or 94–99.
pub fn us_itin(s: &str) -> bool {
    let g = num(s, 3..5);
    s.len() == 9
        && s.starts_with('9')
        && digits(s).is_some()
        && matches!(g, 50..=65 | 70..=88 | 90..=92 | 94..=99)
}

/// UK NHS number: 10 digits, weighted mod-11 check digit (10 is invalid).
pub fn uk_nhs(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    if d.len() != 10 {
        return false;
    }
    let sum: u32 = d[..9].iter().zip((2..=10).rev()).map(|(a, w)| a * w).sum();
    let check = 11 - sum % 11;
    match check {
        11 => d[9] == 0,
        10 => false,
        c => d[9] == c,
    }
}

/// Indian PAN: five letters (the fourth names the holder type), four
/// digits, a letter. No check character, so it is only read after a keyword.
pub fn in_pan(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[..5].iter().all(u8::is_ascii_uppercase)
        && b"ABCFGHLJPTK".contains(&b[3])
        && b[5..9].iter().all(u8::is_ascii_digit)
        && b[9].is_ascii_uppercase()
}

fn valid_date(m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && (1..=31).contains(&d)
}

/// GB 11643 Chinese resident ID: 17 digits + a check character, with a
/// birth date.
pub fn cn_resident_id(s: &str) -> bool {
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let (Some(body), Some(last)) = (s.get(..17).and_then(digits), s.as_bytes().get(17)) else {
        return false;
    };
    let sum: u32 = body.iter().zip(W).map(|(d, w)| d * w).sum();
    let check = b"10X98765432"[(sum % 11) as usize];
    s.len() == 18
        && last.to_ascii_uppercase() == check
        && (1900..=2100).contains(&num(s, 6..10))
        && valid_date(num(s, 10..12), num(s, 12..14))
}

/// Korean Resident Registration Number: YYMMDD + a sex/century digit +
/// six digits. Numbers issued since 2020 carry no check digit, so `check`
/// asks for the older weighted mod-11 digit (used when there is no dash).
pub fn kr_rrn(s: &str, check: bool) -> bool {
    const W: [u32; 12] = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5];
    let Some(d) = digits(s) else { return false };
    if d.len() != 13 || !valid_date(num(s, 2..4), num(s, 4..6)) || !(1..=8).contains(&d[6]) {
        return false;
    }
    let sum: u32 = d.iter().zip(W).map(|(a, w)| a * w).sum();
    !check || (11 - sum % 11) % 10 == d[12]
}

/// Polish PESEL: YYMMDD (the month carries the century: +20, +40 …) +
/// five digits, weighted mod-10 check.
pub fn pesel(s: &str) -> bool {
    const W: [u32; 10] = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
    let Some(d) = digits(s) else { return false };
    if d.len() != 11 || !valid_date(num(s, 2..4) % 20, num(s, 4..6)) {
        return false;
    }
    let sum: u32 = d.iter().zip(W).map(|(a, w)| a * w).sum();
    (10 - sum % 10) % 10 == d[10]
}

/// Singapore NRIC/FIN shape without its check: a prefix letter, seven
/// digits, a letter (read only after an NRIC/FIN keyword).
pub fn sg_nric_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 9
        && matches!(b[0], b'S' | b'T' | b'F' | b'G' | b'M')
        && b[1..8].iter().all(u8::is_ascii_digit)
        && b[8].is_ascii_uppercase()
}

/// Singapore NRIC/FIN: S, T, F, G or M (FINs from 2022), seven digits, a
/// check letter.
pub fn sg_nric(s: &str) -> bool {
    const W: [u32; 7] = [2, 7, 6, 5, 4, 3, 2];
    let b = s.as_bytes();
    let Some(d) = s.get(1..8).and_then(digits) else {
        return false;
    };
    if b.len() != 9 {
        return false;
    }
    let offset = match b[0] {
        b'T' | b'G' => 4,
        b'M' => 3,
        _ => 0,
    };
    let sum = d.iter().zip(W).map(|(a, w)| a * w).sum::<u32>() + offset;
    let table: &[u8] = match b[0] {
        b'S' | b'T' => b"JZIHGFEDCBA",
        b'F' | b'G' => b"XWUTRQPNMLK",
        b'M' => b"XWUTRQPNJLK",
        _ => return false,
    };
    table[(sum % 11) as usize] == b[8]
}

/// A two-digit year, month and day that name a real date.
fn yymmdd(s: &str) -> bool {
    let (y, m, d) = (num(s, 0..2), num(s, 2..4), num(s, 4..6));
    let leap = y % 4 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// South African ID number: YYMMDD, a four-digit sequence, citizenship
/// (0, 1 or 2), the old race digit (8 or 9), a Luhn check digit.
pub fn za_id(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 13
        && digits(s).is_some()
        && yymmdd(s)
        && matches!(b[10], b'0'..=b'2')
        && matches!(b[11], b'8' | b'9')
        && luhn(s)
}

/// Philippine Taxpayer Identification Number: eight digits, a weighted
/// mod-11 check digit, and an optional three-digit branch code.
pub fn ph_tin(s: &str) -> bool {
    const W: [u32; 8] = [9, 8, 7, 6, 5, 4, 3, 2];
    let Some(d) = digits(s) else { return false };
    if !matches!(d.len(), 9 | 12) {
        return false;
    }
    let sum: u32 = d.iter().zip(W).map(|(a, w)| a * w).sum();
    sum % 11 == d[8]
}

/// German pension insurance number (Rentenversicherungsnummer): area (2
/// digits), birth date DDMMYY (day +50 allowed), the surname's initial,
/// a two-digit serial and a check digit: the letter as its two-digit
/// position, weights 2 1 2 5 7 1 2 1 2 1 2 1, cross sums, mod 10.
pub fn de_rvnr(s: &str) -> bool {
    const W: [u32; 12] = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1];
    let b = s.as_bytes();
    if b.len() != 12 || !b[8].is_ascii_uppercase() {
        return false;
    }
    let (Some(head), Some(tail)) = (s.get(..8).and_then(digits), s.get(9..).and_then(digits))
    else {
        return false;
    };
    let day = head[2] * 10 + head[3];
    let month = head[4] * 10 + head[5];
    if !((1..=31).contains(&day) || (51..=81).contains(&day)) || !(1..=12).contains(&month) {
        return false;
    }
    let letter = (b[8] - b'A' + 1) as u32;
    let data: Vec<u32> = head
        .iter()
        .copied()
        .chain([letter / 10, letter % 10])
        .chain(tail[..2].iter().copied())
        .collect();
    let sum: u32 = data
        .iter()
        .zip(W)
        .map(|(a, w)| {
            let p = a * w;
            p / 10 + p % 10
        })
        .sum();
    sum % 10 == tail[2]
}

/// Australian Tax File Number: 8 or 9 digits, weighted sum divisible by 11.
pub fn au_tfn(s: &str) -> bool {
    let w: &[u32] = match s.len() {
        9 => &[1, 4, 3, 7, 5, 8, 6, 9, 10],
        8 => &[10, 7, 8, 4, 6, 3, 5, 1],
        _ => return false,
    };
    let Some(d) = digits(s) else { return false };
    matches!(d.iter().zip(w).map(|(a, w)| a * w).sum::<u32>() % 11, 0)
}

/// Italian codice fiscale: 6 letters, birth year, month letter, day, place
/// code, check letter (digits may be replaced by letters, "omocodia").
pub fn it_codice_fiscale(s: &str) -> bool {
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    let b = s.as_bytes();
    let digitish = |c: u8| c.is_ascii_digit() || b"LMNPQRSTUV".contains(&c);
    let shape = b.len() == 16
        && b[..6].iter().all(u8::is_ascii_uppercase)
        && [6, 7, 9, 10, 12, 13, 14].iter().all(|&i| digitish(b[i]))
        && b"ABCDEHLMPRST".contains(&b[8])
        && b[11].is_ascii_uppercase()
        && b[15].is_ascii_uppercase();
    if !shape {
        return false;
    }
    let value = |c: u8| -> u32 {
        if c.is_ascii_digit() {
            (c - b'0') as u32
        } else {
            (c - b'A') as u32
        }
    };
    let sum: u32 = b[..15]
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if i % 2 == 0 {
                ODD[value(c) as usize]
            } else {
                value(c)
            }
        })
        .sum();
    b[15] == b'A' + (sum % 26) as u8
}

const NIF_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// Spanish NIF (DNI: 8 digits + letter) or NIE (X/Y/Z + 7 digits + letter).
pub fn es_nif(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 9 {
        return false;
    }
    let lead = match b[0] {
        b'X' => Some(0),
        b'Y' => Some(1),
        b'Z' => Some(2),
        c if c.is_ascii_digit() => Some((c - b'0') as u32),
        _ => None,
    };
    let (Some(lead), Some(rest)) = (lead, s.get(1..8).and_then(digits)) else {
        return false;
    };
    let n = rest.iter().fold(lead, |n, d| n * 10 + d);
    NIF_LETTERS[(n % 23) as usize] == b[8]
}

/// Swedish personnummer: YYMMDD + three digits + a Luhn check digit (the
/// day is +60 for a coordination number).
pub fn se_personnummer(s: &str) -> bool {
    let d = num(s, 4..6);
    s.len() == 10 && valid_date(num(s, 2..4), if d > 60 { d - 60 } else { d }) && luhn(s)
}

/// Finnish HETU: DDMMYY, a century sign, three digits, a check character.
pub fn fi_hetu(s: &str) -> bool {
    const CHECK: &[u8; 31] = b"0123456789ABCDEFHJKLMNPRSTUVWXY";
    let b = s.as_bytes();
    if b.len() != 11 || !b"+-ABCDEFUVWXY".contains(&b[6]) {
        return false;
    }
    let (Some(date), Some(serial)) = (s.get(..6), s.get(7..10)) else {
        return false;
    };
    let Ok(n) = format!("{date}{serial}").parse::<u64>() else {
        return false;
    };
    valid_date(num(s, 2..4), num(s, 0..2)) && CHECK[(n % 31) as usize] == b[10]
}

/// German Steuer-ID: 11 digits, no leading 0; in the first ten exactly one
/// digit repeats (twice or three times); ISO 7064 MOD 11,10 check digit.
pub fn de_steuer_id(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    if d.len() != 11 || d[0] == 0 {
        return false;
    }
    let mut counts = [0u8; 10];
    for &x in &d[..10] {
        counts[x as usize] += 1;
    }
    let repeated: Vec<u8> = counts.iter().copied().filter(|&c| c > 1).collect();
    if repeated.len() != 1 || repeated[0] > 3 {
        return false;
    }
    let mut product = 10;
    for &x in &d[..10] {
        let mut sum = (x + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = (sum * 2) % 11;
    }
    let check = 11 - product;
    (if check == 10 { 0 } else { check }) == d[10]
}

/// UK National Insurance number: two letters (not D, F, I, Q, U, V; the
/// second not O; not BG, GB, KN, NK, NT, TN, ZZ), six digits, A–D.
pub fn uk_nino(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 9 || !b[2..8].iter().all(u8::is_ascii_digit) || !b"ABCD".contains(&b[8]) {
        return false;
    }
    let ok1 = b[0].is_ascii_uppercase() && !b"DFIQUV".contains(&b[0]);
    let ok2 = b[1].is_ascii_uppercase() && !b"DFIQUVO".contains(&b[1]);
    let banned = ["BG", "GB", "KN", "NK", "NT", "TN", "ZZ"];
    ok1 && ok2 && !banned.iter().any(|p| s.starts_with(p))
}

/// Estonian personal code (isikukood): GYYMMDDSSSC, the century-and-sex
/// digit 3–6 (born 1900–2099), a real month and day, and the check digit
/// of the two-stage weights (1…9,1 then 3…9,1,2,3; a remainder of 10 twice
/// gives 0).
pub fn ee_isikukood(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 11 || !b.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let d: Vec<u32> = b.iter().map(|&c| (c - b'0') as u32).collect();
    let (month, day) = (d[3] * 10 + d[4], d[5] * 10 + d[6]);
    if !(3..=6).contains(&d[0]) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    let sum = |w: [u32; 10]| d.iter().zip(w).map(|(x, w)| x * w).sum::<u32>() % 11;
    let mut c = sum([1, 2, 3, 4, 5, 6, 7, 8, 9, 1]);
    if c == 10 {
        c = sum([3, 4, 5, 6, 7, 8, 9, 1, 2, 3]) % 10;
    }
    c == d[10]
}

/// German passport number (Reisepass, since 2007): nine characters from
/// the alphabet without vowels and look-alikes (C F G H J K L M N P R T V
/// W X Y Z and digits), the first the issuing office's letter (C F G H J K),
/// optionally followed by the ICAO 9303 check digit (weights 7, 3, 1).
pub fn de_passport(s: &str) -> bool {
    let b = s.as_bytes();
    if !(9..=10).contains(&b.len()) || !b"CFGHJK".contains(&b[0]) {
        return false;
    }
    let allowed = |c: u8| c.is_ascii_digit() || b"CFGHJKLMNPRTVWXYZ".contains(&c);
    if !b[..9].iter().all(|&c| allowed(c)) || !b[..9].iter().any(u8::is_ascii_digit) {
        return false;
    }
    if b.len() == 9 {
        return true;
    }
    let value = |c: u8| match c {
        b'0'..=b'9' => (c - b'0') as u32,
        _ => (c - b'A') as u32 + 10,
    };
    let sum: u32 = b[..9]
        .iter()
        .zip([7, 3, 1].iter().cycle())
        .map(|(&c, w)| value(c) * w)
        .sum();
    b[9].is_ascii_digit() && (b[9] - b'0') as u32 == sum % 10
}

/// IBAN lengths by country (ISO 13616 registry).
#[rustfmt::skip]
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24), ("AE", 23), ("AL", 28), ("AT", 20), ("AZ", 28), ("BA", 20), ("BE", 16),
    ("BG", 22), ("BH", 22), ("BR", 29), ("BY", 28), ("CH", 21), ("CR", 22), ("CY", 28),
    ("CZ", 24), ("DE", 22), ("DK", 18), ("DO", 28), ("EE", 20), ("EG", 29), ("ES", 24),
    ("FI", 18), ("FO", 18), ("FR", 27), ("GB", 22), ("GE", 22), ("GI", 23), ("GL", 18),
    ("GR", 27), ("GT", 28), ("HR", 21), ("HU", 28), ("IE", 22), ("IL", 23), ("IQ", 23),
    ("IS", 26), ("IT", 27), ("JO", 30), ("KW", 30), ("KZ", 20), ("LB", 28), ("LC", 32),
    ("LI", 21), ("LT", 20), ("LU", 20), ("LV", 21), ("MC", 27), ("MD", 24), ("ME", 22),
    ("MK", 19), ("MR", 27), ("MT", 31), ("MU", 30), ("NL", 18), ("NO", 15), ("PK", 24),
    ("PL", 28), ("PS", 29), ("PT", 25), ("QA", 29), ("RO", 24), ("RS", 22), ("SA", 24),
    ("SC", 31), ("SE", 24), ("SI", 19), ("SK", 24), ("SM", 27), ("ST", 25), ("SV", 28),
    ("TL", 23), ("TN", 24), ("TR", 26), ("UA", 29), ("VA", 22), ("VG", 24), ("XK", 20),
];

/// The registered IBAN length for a country code.
pub fn iban_length(country: &str) -> Option<usize> {
    IBAN_LENGTHS
        .iter()
        .find(|(c, _)| *c == country)
        .map(|(_, n)| *n)
}

/// IBAN: the country's length and ISO 7064 mod 97 = 1.
pub fn iban(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 15 || Some(b.len()) != s.get(..2).and_then(iban_length) {
        return false;
    }
    if !b[2..4].iter().all(u8::is_ascii_digit) || !b.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let rotated = b[4..].iter().chain(&b[..4]);
    let mut rem = 0u32;
    for &c in rotated {
        rem = if c.is_ascii_digit() {
            (rem * 10 + (c - b'0') as u32) % 97
        } else {
            (rem * 100 + (c.to_ascii_uppercase() - b'A') as u32 + 10) % 97
        };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends the digit that makes `check` accept `body`.
    fn complete(body: &str, check: impl Fn(&str) -> bool) -> String {
        (0..10)
            .map(|d| format!("{body}{d}"))
            .find(|s| check(s))
            .expect("one digit completes the number")
    }

    /// A wrong check digit: the last digit moved by one.
    fn broken(s: &str) -> String {
        let (head, last) = s.split_at(s.len() - 1);
        let d = last.parse::<u32>().unwrap_or(0);
        format!("{head}{}", (d + 1) % 10)
    }

    #[test]
    fn luhn_and_cards() {
        let visa = complete("411111111111111", luhn);
        assert!(card(&visa) && !card(&broken(&visa)));
        let amex = complete("37144963539843", luhn);
        assert!(card(&amex));
        // Luhn-valid but no issuer uses 9… or a 15-digit Visa.
        assert!(!card(&complete("91111111111111", luhn)));
        assert!(!card(&complete("41111111111111", luhn)));
    }

    #[test]
    fn aadhaar_verhoeff() {
        let a = complete("23456789012", verhoeff);
        assert!(aadhaar(&a) && !aadhaar(&broken(&a)));
        assert!(!aadhaar(&complete("12345678901", verhoeff)));
    }

    #[test]
    fn canadian_sin() {
        let s = complete("13069254", luhn);
        assert!(ca_sin(&s) && !ca_sin(&broken(&s)));
        assert!(!ca_sin(&complete("83069254", luhn)));
    }

    #[test]
    fn us_ssn_ranges() {
        assert!(us_ssn("512447302"));
        assert!(!us_ssn("666447302") && !us_ssn("900447302") && !us_ssn("512007302"));
        assert!(!us_ssn("512440000") && !us_ssn("000447302"));
        assert!(!us_ssn("078051120") && !us_ssn("123456789"));
    }

    #[test]
    fn us_itin_groups() {
        assert!(us_itin("912701234") && us_itin("999941234"));
        assert!(!us_itin("912691234") && !us_itin("812701234"));
    }

    #[test]
    fn uk_nhs_mod11() {
        // 943 476 591: 9·10+4·9+3·8+4·7+7·6+6·5+5·4+9·3+1·2 = 299, 11 − 299 mod 11 = 9.
        assert!(uk_nhs("9434765919") && !uk_nhs("9434765918"));
    }

    #[test]
    fn indian_pan_shape() {
        assert!(in_pan("ABCPE1234F") && !in_pan("ABCDE1234F") && !in_pan("ABCP12345F"));
    }

    #[test]
    fn chinese_resident_id() {
        assert!(cn_resident_id("11010519491231002X"));
        assert!(!cn_resident_id("110105194912310021"));
        assert!(!cn_resident_id("110105194913310028"));
    }

    #[test]
    fn korean_rrn() {
        let r = complete("880712102345", |s| kr_rrn(s, true));
        assert!(kr_rrn(&r, true) && !kr_rrn(&broken(&r), true));
        // Without a checksum requirement the date and sex digit still count.
        assert!(kr_rrn(&broken(&r), false));
        assert!(!kr_rrn("8813121023451", false));
    }

    #[test]
    fn polish_pesel() {
        let p = complete("9203150247", pesel);
        assert!(pesel(&p) && !pesel(&broken(&p)));
        // 2000s births carry month + 20.
        assert!(pesel(&complete("0523150247", pesel)));
        // Month 13 is no month in any century.
        assert!((0..10).all(|d| !pesel(&format!("9213150247{d}"))));
    }

    #[test]
    fn singapore_nric() {
        // S8812345: 2·8+7·8+6·1+5·2+4·3+3·4+2·5 = 122, 122 mod 11 = 1 → 'Z'.
        assert!(sg_nric("S8812345Z") && !sg_nric("S8812345J"));
        let valid: Vec<String> = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            .iter()
            .map(|&c| format!("T757222{}{}", 5, c as char))
            .filter(|s| sg_nric(s))
            .collect();
        assert_eq!(valid, vec!["T7572225C".to_string()]);
        assert!(!sg_nric("T7572225D") && !sg_nric("A7572225C"));
        let fin = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            .iter()
            .map(|&c| format!("F1234567{}", c as char))
            .filter(|s| sg_nric(s))
            .collect::<Vec<_>>();
        assert_eq!(fin, vec!["F1234567N".to_string()]);
    }

    #[test]
    fn australian_tfn() {
        let t = complete("87654321", au_tfn);
        assert!(au_tfn(&t) && !au_tfn(&broken(&t)));
    }

    #[test]
    fn italian_codice_fiscale() {
        let valid: Vec<char> = ('A'..='Z')
            .filter(|c| it_codice_fiscale(&format!("BNCLRA85T41F205{c}")))
            .collect();
        assert_eq!(valid.len(), 1);
        assert!(it_codice_fiscale("AAAAAA00B11C333Y"));
        assert!(!it_codice_fiscale("AAAAAA00B11C333Z"));
        // Month letter F is not used.
        assert!(!it_codice_fiscale("AAAAAA00F11C333Y"));
    }

    #[test]
    fn spanish_nif_nie() {
        // 48213957 mod 23 = 0 → 'T'; 12345678 mod 23 = 14 → 'Z'.
        assert!(es_nif("48213957T") && !es_nif("48213957A"));
        assert!(es_nif("12345678Z"));
        // NIE X1234567: 01234567 mod 23 = 19 → 'L'.
        assert!(es_nif("X1234567L") && !es_nif("X1234567M"));
        assert!(!es_nif("A1234567L"));
    }

    #[test]
    fn swedish_personnummer() {
        let p = complete("850417238", luhn);
        assert!(se_personnummer(&p) && !se_personnummer(&broken(&p)));
        assert!(!se_personnummer(&complete("851317238", luhn)));
    }

    #[test]
    fn finnish_hetu() {
        // 170390427 mod 31 = 12 → 'C'.
        assert!(fi_hetu("170390-427C") && !fi_hetu("170390-427B"));
        assert!(fi_hetu("170390A427C") && !fi_hetu("170390G427C"));
    }

    #[test]
    fn german_steuer_id() {
        // 8650912745: the 5 repeats, the 3 is missing.
        let t = complete("8650912745", de_steuer_id);
        assert!(de_steuer_id(&t) && !de_steuer_id(&broken(&t)));
        // Ten distinct digits break the structure rule whatever the check.
        assert!((0..10).all(|d| !de_steuer_id(&format!("5783196420{d}"))));
    }

    #[test]
    fn estonian_isikukood() {
        let t = complete("6091125802", ee_isikukood);
        assert_eq!(t, "60911258021");
        assert!(ee_isikukood("37605030299") && !ee_isikukood(&broken(&t)));
        // A month 13, a century digit 9, letters: not a personal code.
        assert!((0..10).all(|d| !ee_isikukood(&format!("6091325802{d}"))));
        assert!((0..10).all(|d| !ee_isikukood(&format!("9091125802{d}"))));
        assert!(!ee_isikukood("6091125802a"));
    }

    #[test]
    fn german_passport() {
        assert!(de_passport("GC8MG0PRH") && de_passport("C01X00T47"));
        // With its check digit (ICAO 7-3-1): C01X00T47 → 8.
        assert!(de_passport("C01X00T478") && !de_passport("C01X00T479"));
        // A vowel, a first letter outside C F G H J K, no digit at all.
        assert!(
            !de_passport("GA8MG0PRH") && !de_passport("AC8MG0PRH") && !de_passport("GCMMGLPRH")
        );
    }

    #[test]
    fn uk_nino_format() {
        assert!(uk_nino("JM528106C") && uk_nino("YZ614868B"));
        assert!(!uk_nino("JM528106E") && !uk_nino("DM528106C") && !uk_nino("GB528106C"));
    }

    #[test]
    fn iban_mod97() {
        assert!(iban("GB82WEST12345698765432"));
        assert!(!iban("GB82WEST12345698765433"));
        assert!(!iban("GB82WEST1234569876543"));
        assert!(!iban("QQ82WEST12345698765432"));
    }
    #[test]
    fn south_african_id() {
        let z = complete("800101500908", luhn);
        assert!(za_id(&z) && !za_id(&broken(&z)));
        // A wrong date or citizenship digit is no ID, Luhn or not.
        assert!(!za_id(&complete("801301500908", luhn)));
        assert!(!za_id(&complete("800101500958", luhn)));
    }

    #[test]
    fn philippine_tin() {
        // 1·9+2·8+3·7+4·6+5·5+6·4+7·3+8·2 = 156 ≡ 2 (mod 11).
        assert!(ph_tin("123456782") && ph_tin("123456782000"));
        assert!(!ph_tin("123456789") && !ph_tin("1234567820"));
    }

    #[test]
    fn german_pension_number() {
        // The DRV's documented example.
        assert!(de_rvnr("15070649C103"));
        assert!(!de_rvnr("15070649C104") && !de_rvnr("15071349C103"));
        assert!(!de_rvnr("150706493103"));
    }

    #[test]
    fn singapore_m_series_fin() {
        // 1234567 weighs 2+14+18+20+20+18+14 = 106; +3 = 109 ≡ 10: "K".
        assert!(sg_nric("M1234567K") && !sg_nric("M1234567X"));
        assert!(sg_nric_shape("M1234567X") && !sg_nric_shape("M123456X7"));
    }
}
