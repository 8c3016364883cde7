//! A finding: what a detector found (a secret or personal data, its
//! byte range and a hint safe to print), and what is done with findings
//! (redacted, masked, deduplicated).

use crate::types::Sensitivity;

/// What a finding is: a family of secrets or of personal data. Its name
/// (`name`, written here once) is what a redaction marks
/// (`[REDACTED:<name>]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// `aliyun-access-key`
    AliyunAccessKey,
    /// `api-key`
    ApiKey,
    /// `aws-access-key`
    AwsAccessKey,
    /// `bank-account`
    BankAccount,
    /// `bearer-token`
    BearerToken,
    /// `connection-string-password`
    ConnectionStringPassword,
    /// `credential-pair`
    CredentialPair,
    /// `email-address`
    EmailAddress,
    /// `environment-dump`
    EnvironmentDump,
    /// `github-token`
    GithubToken,
    /// `gitlab-token`
    GitlabToken,
    /// `google-api-key`
    GoogleApiKey,
    /// `health`
    Health,
    /// `high-entropy-token`
    HighEntropyToken,
    /// `huggingface-token`
    HuggingfaceToken,
    /// `jwt`
    Jwt,
    /// `national-id`
    NationalId,
    /// `npm-token`
    NpmToken,
    /// `passport-number`
    PassportNumber,
    /// `password`
    Password,
    /// `password-like`
    PasswordLike,
    /// `pay-or-debt`
    PayOrDebt,
    /// `payment-card`
    PaymentCard,
    /// `phone-number`
    PhoneNumber,
    /// `prefixed-token`
    PrefixedToken,
    /// `private-key`
    PrivateKey,
    /// `pypi-token`
    PypiToken,
    /// `secret-assignment`
    SecretAssignment,
    /// `slack-token`
    SlackToken,
    /// `stripe-key`
    StripeKey,
    /// `tencent-secret-id`
    TencentSecretId,
    /// `webhook-url`
    WebhookUrl,
}

impl Family {
    /// Every family.
    pub const ALL: &'static [Family] = &[
        Family::AliyunAccessKey,
        Family::ApiKey,
        Family::AwsAccessKey,
        Family::BankAccount,
        Family::BearerToken,
        Family::ConnectionStringPassword,
        Family::CredentialPair,
        Family::EmailAddress,
        Family::EnvironmentDump,
        Family::GithubToken,
        Family::GitlabToken,
        Family::GoogleApiKey,
        Family::Health,
        Family::HighEntropyToken,
        Family::HuggingfaceToken,
        Family::Jwt,
        Family::NationalId,
        Family::NpmToken,
        Family::PassportNumber,
        Family::Password,
        Family::PasswordLike,
        Family::PayOrDebt,
        Family::PaymentCard,
        Family::PhoneNumber,
        Family::PrefixedToken,
        Family::PrivateKey,
        Family::PypiToken,
        Family::SecretAssignment,
        Family::SlackToken,
        Family::StripeKey,
        Family::TencentSecretId,
        Family::WebhookUrl,
    ];

    /// The family's name, e.g. "aws-access-key", "password", "payment-card".
    pub const fn name(self) -> &'static str {
        match self {
            Family::AliyunAccessKey => "aliyun-access-key",
            Family::ApiKey => "api-key",
            Family::AwsAccessKey => "aws-access-key",
            Family::BankAccount => "bank-account",
            Family::BearerToken => "bearer-token",
            Family::ConnectionStringPassword => "connection-string-password",
            Family::CredentialPair => "credential-pair",
            Family::EmailAddress => "email-address",
            Family::EnvironmentDump => "environment-dump",
            Family::GithubToken => "github-token",
            Family::GitlabToken => "gitlab-token",
            Family::GoogleApiKey => "google-api-key",
            Family::Health => "health",
            Family::HighEntropyToken => "high-entropy-token",
            Family::HuggingfaceToken => "huggingface-token",
            Family::Jwt => "jwt",
            Family::NationalId => "national-id",
            Family::NpmToken => "npm-token",
            Family::PassportNumber => "passport-number",
            Family::Password => "password",
            Family::PasswordLike => "password-like",
            Family::PayOrDebt => "pay-or-debt",
            Family::PaymentCard => "payment-card",
            Family::PhoneNumber => "phone-number",
            Family::PrefixedToken => "prefixed-token",
            Family::PrivateKey => "private-key",
            Family::PypiToken => "pypi-token",
            Family::SecretAssignment => "secret-assignment",
            Family::SlackToken => "slack-token",
            Family::StripeKey => "stripe-key",
            Family::TencentSecretId => "tencent-secret-id",
            Family::WebhookUrl => "webhook-url",
        }
    }

    /// The family named `name`, if any.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// A secret or a piece of personal data found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// What it is (`Family::name`: "aws-access-key", "password", …).
    pub family: Family,
    /// Human-readable name, e.g. "AWS access key".
    pub label: &'static str,
    /// Safe to print: a format prefix ("AKIA…") or a key name, never the value.
    pub hint: String,
    /// The sensitive value's byte range in the text.
    pub start: usize,
    pub end: usize,
}

impl Finding {
    /// How sensitive a memory holding this personal data is.
    pub fn sensitivity(&self) -> Sensitivity {
        match self.family {
            Family::PhoneNumber | Family::EmailAddress => Sensitivity::Personal,
            _ => Sensitivity::Sensitive,
        }
    }

    /// Does this personal data need an explicit ask to be written? (E-mail
    /// addresses do not; they only raise the memory's sensitivity.)
    pub fn gated(&self) -> bool {
        self.family != Family::EmailAddress
    }

    /// "AWS access key (AKIA…)" for a reason.
    pub fn describe(&self) -> String {
        if self.hint.is_empty() {
            self.label.to_string()
        } else {
            format!("{} ({})", self.label, self.hint)
        }
    }
}

/// `text` with the given findings replaced by `[REDACTED:family]`. A
/// finding with an empty range (the learned head's: a statement, not a
/// value) replaces nothing.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut spans: Vec<&Finding> = findings.iter().filter(|f| f.start < f.end).collect();
    spans.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in spans {
        if f.start < at || f.end > text.len() {
            continue;
        }
        let (Some(before), true) = (text.get(at..f.start), text.is_char_boundary(f.end)) else {
            continue;
        };
        out.push_str(before);
        out.push_str("[REDACTED:");
        out.push_str(f.family.name());
        out.push(']');
        at = f.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// `text` with the findings blanked by spaces, keeping its byte layout (so
/// the classifier never reads a secret's characters as cues).
pub fn mask(text: &str, findings: &[Finding]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for f in findings {
        if f.start <= f.end
            && f.end <= text.len()
            && text.is_char_boundary(f.start)
            && text.is_char_boundary(f.end)
        {
            for b in &mut bytes[f.start..f.end] {
                *b = b' ';
            }
        }
    }
    // Whole characters were replaced by ASCII, so this cannot fail; fall
    // back to the original rather than panic.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Keep the first of overlapping findings (sorted by position).
pub(super) fn dedup(mut v: Vec<Finding>) -> Vec<Finding> {
    v.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut out: Vec<Finding> = Vec::new();
    for f in v {
        if out.iter().any(|g| f.start < g.end && g.start < f.end) {
            continue;
        }
        out.push(f);
    }
    out
}

pub(super) fn finding(
    family: Family,
    label: &'static str,
    hint: String,
    start: usize,
    end: usize,
) -> Finding {
    Finding {
        family,
        label,
        hint,
        start,
        end,
    }
}
