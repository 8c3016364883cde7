//! Tests of the secrets detectors, family by family, and of redaction.

use super::shape::entropy;
use super::*;

fn families(text: &str) -> Vec<&'static str> {
    find_secrets(text)
        .into_iter()
        .map(|f| f.family.name())
        .collect()
}

fn secret_value(text: &str) -> String {
    let f = find_secrets(text);
    assert!(!f.is_empty(), "no secret in {text:?}");
    text[f[0].start..f[0].end].to_string()
}

#[test]
fn cloud_keys() {
    assert_eq!(
        families("key AKIA2E0A8F3B244C9986 in prod"),
        vec!["aws-access-key"]
    );
    // The documentation's example key is a placeholder.
    assert!(families("key AKIAIOSFODNN7EXAMPLE in prod").is_empty());
    assert!(
        families("阿里云 AccessKey ID 是 LTAI5tQ9xZ2mKp7Wv3Rn8Lc").contains(&"aliyun-access-key")
    );
    assert!(families("AKIA is a prefix").is_empty());
    // An alphabet written out is a placeholder, whatever its prefix.
    assert!(families("use ghp_1234567890abcdefghijABCDEFGHIJ123456 for CI").is_empty());
}

#[test]
fn api_tokens() {
    assert_eq!(
        families("export OPENAI=sk-proj-4fG7hK2mN9pQ1rS5tU8v")[0],
        "api-key"
    );
    assert_eq!(
        families("use ghp_8Zq2Lm7Rt4Kx9Vb1Nc6Hd3Jf5Gs0Pw2Ay7Tq for CI"),
        vec!["github-token"]
    );
    assert_eq!(
        families("token in use: npm_8ZqT4mK2xL9pV7wR3nB6cY1hJ0sF5dA2eG9u"),
        vec!["npm-token"]
    );
    assert_eq!(
        families("slack xoxb-2048-4096-abcdefABCDEF12 ok"),
        vec!["slack-token"]
    );
    assert!(families("pip install sk-learn-tutorial-package-for-beginners").is_empty());
}

#[test]
fn jwts_and_bearer_headers() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assert!(
        families(&format!("token={jwt}")).contains(&"jwt")
            || families(&format!("token={jwt}")).contains(&"secret-assignment")
    );
    assert_eq!(families(&format!("got {jwt} back")), vec!["jwt"]);
    assert_eq!(
        families("curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://x"),
        vec!["bearer-token"]
    );
    assert_eq!(
        families("Authorization: Basic dXNlcjpwYXNzd29yZA1="),
        vec!["bearer-token"]
    );
}

#[test]
fn private_key_blocks() {
    let t = "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nthanks";
    let f = find_secrets(t);
    assert_eq!(f[0].family.name(), "private-key");
    assert!(t[f[0].end..].starts_with("\nthanks"));
    assert!(families("-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----").is_empty());
}

#[test]
fn connection_strings() {
    assert_eq!(
        secret_value("DSN postgres://app:s3cr3t!@db.internal:5432/orders"),
        "s3cr3t!"
    );
    assert_eq!(
        secret_value("amqp://guest:Gu3st-Pw@mq-prod-03:5672"),
        "Gu3st-Pw"
    );
    assert_eq!(secret_value("redis://:hunter22@cache:6379/0"), "hunter22");
    assert!(families("see https://example.com/docs and postgres://db/orders").is_empty());
    assert!(families("mysql://root:${DB_PASSWORD}@db").is_empty());
}

#[test]
fn assignments_and_dumps() {
    assert_eq!(
        secret_value("\"Env\": [\"MYSQL_PASSWORD=h7Kp!2wQz9Lm\", \"TZ=Asia/Shanghai\"]"),
        "h7Kp!2wQz9Lm"
    );
    assert_eq!(
        families("STRIPE_KEY=rk_9f8e7d6c5b4a and DEBUG=1"),
        vec!["secret-assignment"]
    );
    let dump = "HOME=/root PATH=/usr/bin SIGNING=Qx7vT2mPz9Lk4Rw8Bn3C TZ=UTC";
    assert!(families(dump).contains(&"environment-dump"));
    assert!(families("TZ=Asia/Shanghai LANG=en_US.UTF-8").is_empty());
    assert!(families("DB_PASSWORD=******** (masked)").is_empty());
}

#[test]
fn keyword_anchored_values() {
    assert_eq!(
        secret_value("Datadog API key is 4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e — keep it handy"),
        "4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e"
    );
    assert_eq!(
        secret_value("我的邮箱密码是 Abc12345，别告诉别人"),
        "Abc12345"
    );
    assert_eq!(secret_value("密码：h7Kp!2wQz9Lm"), "h7Kp!2wQz9Lm");
    assert_eq!(secret_value("my password is hunter2."), "hunter2");
    assert_eq!(
        secret_value("the password for the admin account is Tr0ub4dor&3"),
        "Tr0ub4dor&3"
    );
    assert_eq!(
        secret_value("Secret 是 Vb4Hj8Ks2Nq6Tx1Zr9Mw3Pd7Ly5Fc0。"),
        "Vb4Hj8Ks2Nq6Tx1Zr9Mw3Pd7Ly5Fc0"
    );
    for t in [
        "Reset your password via the portal",
        "the password policy requires 12 characters",
        "token expired, please log in again",
        "密码策略要求至少 12 位",
        "passwords are rotated monthly",
        "the tokenizer splits words",
    ] {
        assert!(
            families(t).is_empty(),
            "{t:?} flagged: {:?}",
            find_secrets(t)
        );
    }
}

#[test]
fn password_like_strings() {
    assert_eq!(
        families("Jenkins admin login is admin / Jk!9x2Lq7, change it"),
        vec!["credential-pair"]
    );
    assert_eq!(
        families("the wifi is Corp#Guest2026 downstairs"),
        vec!["password-like"]
    );
    for t in [
        "C++17 and Node.js 20",
        "v2.3.1-RC1",
        "Q3-2026 plan",
        "user@example.com",
        "Hello World 2026!",
    ] {
        assert!(
            families(t).is_empty(),
            "{t:?} flagged: {:?}",
            find_secrets(t)
        );
    }
}

#[test]
fn provider_prefixed_families() {
    // Known prefixes and unknown ones judged by the body's shape.
    for (text, value) in [
        (
            "slack xoxb-1204-88213-Qw7rTz9LmK2p",
            "xoxb-1204-88213-Qw7rTz9LmK2p",
        ),
        (
            "ci uses ghp_9Zq2Lm7Rt4Kx8Vb1Nc6Hd3Jf5Gs0Pw2Ay7Te",
            "ghp_9Zq2Lm7Rt4Kx8Vb1Nc6Hd3Jf5Gs0Pw2Ay7Te",
        ),
        ("glpat-Xb8Rq2mT7vLz4Kp9Wn3C", "glpat-Xb8Rq2mT7vLz4Kp9Wn3C"),
        (
            "stripe sk_live_7Hq2Lm9Rt4Kx8Vb1Nc6Hd3Jf",
            "sk_live_7Hq2Lm9Rt4Kx8Vb1Nc6Hd3Jf",
        ),
        (
            "npm_4Tz8Qm2Lr7Vx9Kp3Wn6Bc1Hd5Jf0Gs2Ay7Te",
            "npm_4Tz8Qm2Lr7Vx9Kp3Wn6Bc1Hd5Jf0Gs2Ay7Te",
        ),
        ("AKIA7Q2L9R4T8X1V6B3N in prod", "AKIA7Q2L9R4T8X1V6B3N"),
        // Unknown providers: a lettered prefix and a random body (hex too).
        (
            "do token dop_v1_4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e9b0d3a6c",
            "dop_v1_4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e9b0d3a6c",
        ),
        (
            "shop 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",
            "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",
        ),
        (
            "vendor acmeio_k3v9q2m7x4t8z1w6r5p0n2b7c4d9",
            "acmeio_k3v9q2m7x4t8z1w6r5p0n2b7c4d9",
        ),
    ] {
        assert_eq!(secret_value(text), value, "{text}");
    }
}

#[test]
fn sendgrid_style_dotted_keys_and_random_tokens() {
    assert!(!find_secrets(
        "SG.Xq7Lm2Rt9Kz4Vb8Nc1Hd6J.Pw3Ay7Te0Gs5Jf2Qm8Lr4Vx9Kp1Wn6Bc3Hd7Jf2Gs5Ay"
    )
    .is_empty());
    // A 64-character single-case random string is a key; a hex digest is not.
    let base36 = "k3v9q2m7x4t8z1w6r5p0n2b7c4d9f8g1h6j3l5s0a2e7u4y9i1o6k3v9q2m7x4t8";
    assert_eq!(
        families(&format!("backup printed {base36}")),
        vec!["high-entropy-token"]
    );
    let hex = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
    assert!(families(&format!("sha256 {hex}")).is_empty());
    assert!(!families(&format!("signing_key: {hex}")).is_empty());
}

#[test]
fn a_setting_word_only_right_after_the_keyword() {
    let uuid = "285e9f36-1138-5f71-f0cf-f58ae0df2ece";
    assert_eq!(
        secret_value(&format!(
            "New heroku API key after today's rotation: {uuid}"
        )),
        uuid
    );
}

#[test]
fn tokens_without_a_vendor_prefix_in_credential_positions() {
    let uuid = "3f2a9c1b-7e4d-4a6f-8b0c-2d4e6f8a0b1c";
    for (text, value) in [
        (format!("//registry.npmjs.org/:_authToken={uuid}"), uuid),
        (format!("<add key=\"ApiKey\" value=\"{uuid}\" />"), uuid),
        (
            "kind: Secret\ndata:\n  password: aHVudGVyMng=".to_string(),
            "aHVudGVyMng=",
        ),
    ] {
        assert_eq!(secret_value(&text), value, "{text}");
    }
}

#[test]
fn webhook_urls_with_secret_paths() {
    assert_eq!(
        secret_value(
            "alerts: https://hooks.slack.com/services/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"
        ),
        "q8Lr2Vx7Nw4Kp1Zt9Mc3Hd5J"
    );
    let d = "https://discord.com/api/webhooks/123456789012345678/Xb8Rq2mT7vLz4Kp9Wn3C-Qa1Sd5Fg";
    assert!(
        families(d).contains(&"webhook-url"),
        "{:?}",
        find_secrets(d)
    );
    assert!(families("see https://docs.example.com/webhooks/getting-started").is_empty());
}

#[test]
fn keyword_key_needs_a_token() {
    assert_eq!(
        secret_value("The payment encryption key for staging is PAYSECK_TEST-7c1e9a3b5d20"),
        "PAYSECK_TEST-7c1e9a3b5d20"
    );
    for t in [
        "The key to success is Python3 daily",
        "the key is 42",
        "Key West is warm",
    ] {
        assert!(families(t).is_empty(), "{t:?}: {:?}", find_secrets(t));
    }
}

#[test]
fn look_alikes_are_not_secrets() {
    for t in [
        "API_KEY=your_api_key_here",
        "export GITHUB_TOKEN=<token>",
        "password: [PASSWORD]",
        "secret_key = get_secret_key()",
        "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
        "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
        "clientId = \"3f2a9c1b-7e4d-4a6f-8b0c-2d4e6f8a0b1c\"",
        "\"integrity\": \"sha512-Qx7vT2mPz9Lk4Rw8Bn3CyH6Jd1Fs5Gt0Hm2Kp7Lq9Wr3Vz8Xc4Nb6Ma1\"",
        "resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#3f2a9c1b7e4d\"",
        "invoice INV-2026-000481 paid",
        "order id 7f3a9c2e-1b4d-4e6f-a8b0-c2d4e6f8a0b1",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "max_tokens: 4096",
        "token_type: Bearer",
        "the password reset link expires in 24h",
        "keyboard layout: us",
        // Real formats filled with sequences or repeats, empty key
        // blocks, a secret's name where its value goes.
        "xoxb-1234567890-1234567890-abcdefghijklmnopqrstuvwx",
        "api_key = \"1234567890abcdef1234567890abcdef\"",
        "AKIA1234567890ABCDEF",
        "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        "curl \"https://api.example.com/v1/me?access_token=ACCESS_TOKEN\"",
        "client_secret: \"CLIENT_SECRET\"",
        // A random value its key calls public; a command in backticks.
        "public_key = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"",
        "-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`",
        "TOKEN=$(vault read -field=token secret/ci)",
        "Invoice ID: in_0KVnBvo2ZNzxqgUA4dPhPB3i",
        "Set the token TTL to 3600 seconds",
    ] {
        assert!(families(t).is_empty(), "{t:?}: {:?}", find_secrets(t));
    }
}

#[test]
fn credential_pairs_and_entropy() {
    assert_eq!(
        secret_value("生产 MQ 账号 svc_ledger / R4t!u8Pq2z，主机 mq-prod-03"),
        "R4t!u8Pq2z"
    );
    assert!(families("random blob Qx7vT2mPz9Lk4Rw8Bn3CyH6 here").contains(&"high-entropy-token"));
    for t in [
        "customerDedupeService2024Q3Report is a job",
        "commit 3f2a9c1b7e4d5a6f8b0c2d4e6f8a0b1c2d3e4f5a merged",
        "CrashLoopBackOff on ledger-core",
        "user u-qiao / ok",
        "uuid 123e4567-e89b-12d3-a456-426614174000",
    ] {
        assert!(
            families(t).is_empty(),
            "{t:?} flagged: {:?}",
            find_secrets(t)
        );
    }
}

#[test]
fn entropy_is_bits_per_char() {
    assert_eq!(entropy("aaaa"), 0.0);
    assert!((entropy("abcd") - 2.0).abs() < 1e-9);
}

#[test]
fn redaction_and_masking_keep_text_valid() {
    let t = "密码是 Abc12345，手机 13812345678";
    let mut f = find_secrets(t);
    f.extend(find_personal(t));
    let r = redact(t, &f);
    assert!(!r.contains("Abc12345") && !r.contains("13812345678"), "{r}");
    assert!(r.contains("[REDACTED:password]"));
    let m = mask(t, &f);
    assert_eq!(m.len(), t.len());
    assert!(!m.contains("Abc12345"));
}

#[test]
fn redaction_follows_the_policy_it_is_given() {
    let token = "Zx8Qw3Lp9Rt2Vb7NcK4mYd6H";
    let t = format!("debug string {token} for now");
    let default = crate::core::config::Policy::default().write;
    assert_eq!(
        redact_with(&t, &default),
        "debug string [REDACTED:high-entropy-token] for now"
    );
    let loose = crate::core::config::WritePolicy {
        entropy_min_len: 64,
        ..default
    };
    assert_eq!(redact_with(&t, &loose), t);
}

#[test]
fn a_finding_without_a_value_redacts_nothing() {
    // The learned head's findings are statements ("I'm allergic to …"):
    // an empty range, nothing to replace.
    let f = Finding {
        family: Family::Health,
        label: "health condition",
        hint: "learned".into(),
        start: 0,
        end: 0,
    };
    assert_eq!(redact("我对芒果过敏", &[f]), "我对芒果过敏");
}

#[test]
fn never_panics_on_odd_text() {
    for t in [
        "",
        "=",
        "==",
        "a=",
        "://",
        "@",
        "密码",
        "密码是",
        "eyJ.",
        "-----BEGIN",
        "AKIA",
        "账号 a /",
        "𠀀=𠀀",
        "x@.",
        "+",
        "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0",
    ] {
        let _ = find_secrets(t);
        let _ = find_personal(t);
        let _ = redact_with(t, &crate::core::config::Policy::default().write);
    }
}

#[test]
fn every_family_has_one_name_and_is_found_by_it() {
    let mut names = std::collections::BTreeSet::new();
    for f in super::Family::ALL {
        assert!(names.insert(f.name()), "{} named twice", f.name());
        assert_eq!(super::Family::from_name(f.name()), Some(*f));
    }
    assert_eq!(super::Family::from_name("no-such-family"), None);
    assert_eq!(
        super::redact(
            "key AKIA2E0A8F3B244C9986 here",
            &find_secrets("key AKIA2E0A8F3B244C9986 here")
        ),
        "key [REDACTED:aws-access-key] here"
    );
}

/// Provider formats reached by their prefix (or suffix) alone, in a bare
/// sentence in either language: the families a keyword or the shape check
/// does not reach (a dotted, two-letter or letters-only token).
#[test]
fn provider_formats_without_a_keyword() {
    for token in [
        "xapp-1-A0ZYMLOPIFQ-6881973699356-64e5a22fac180d6b2e6e1b465e551305fd2d2490ca4c616e8c4bf144d3334955",
        "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",
        "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",
        "EZAKJ9TlxqnrDK24Syl067EK5O46EQkeIpDHahvYFevPUaKRIrOaLuAqki",
        "NRAK-DZCDV6O9SK2D0OMH5KRRXE9M9LW",
        "pscale_tkn_P90IfVRhUi0ijIfcWGPykw3YToNMW9NkvXd5vZOBmtl",
        "dapi34f07c37e255eb8a1c095409993fd21b",
        "A3-KUVUCY-RO9JBSZ06OL-70DNP-QKG1A-BMILT",
        "sq0csp-d4qlLWBja7PcGz7CekLovBiE6NfxGkoUKFnT2gBNm5Z",
        "SK54f75852777dc278aaf6301d1a619588",
        "GR1348941aKHsmUxhkwyjStHqmCd8",
        "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",
        "872178a38976ee082c309feda739c628-us14",
        "access-production-efa20124-d6d0-03a6-630d-95495d395dc3",
    ] {
        for text in [
            format!("Found during the audit: {token}."),
            format!("配置文件里有这一行：{token}"),
        ] {
            assert_eq!(secret_value(&text), token, "{text}");
        }
    }
    // The same prefixes on words, identifiers and placeholders.
    for text in [
        "- (id)hf_requiredCharacteristicTypesForDisplayMetadata;",
        "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "export SENDGRID_API_KEY=SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "SKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "SG.Singapore office, SG.2023.report",
        "dapibus lorem ipsum and dapi-client version 2",
        "EAAccessibilityService handles EAA requests",
        "access-sandbox-environment-for-the-new-plaid-client-setup",
        "see log 0123456789abcdef0123456789abcdef-usage.txt and us-east-1",
    ] {
        assert!(families(text).is_empty(), "{text}: {:?}", families(text));
    }
}

/// A value named by the keyword after it ("use <value> as the … key"),
/// whatever its alphabet; only when the words name a secret.
#[test]
fn values_named_after_them() {
    for (text, value) in [
        (
            "Please use a47b27d40ac20d2de320627963489562 as the linear client secret from now on.",
            "a47b27d40ac20d2de320627963489562",
        ),
        (
            "From now on use er7tqkrhceq4zis4n6t2q6ql3sjm as the atlassian API token when calling it.",
            "er7tqkrhceq4zis4n6t2q6ql3sjm",
        ),
        (
            "把 er7tqkrhceq4zis4n6t2q6ql3sjm 作为 etsy 的 access token。",
            "er7tqkrhceq4zis4n6t2q6ql3sjm",
        ),
    ] {
        assert_eq!(secret_value(text), value, "{text}");
    }
    for text in [
        "Please use 43fc912ef59a83054ea7f6706df4d53a7dea4d80 as the base commit for the rebase.",
        "We use 3f2a9b8c7d6e5f4a3b2c1d0e as the cache key.",
        "Use https://auth.example.com/oauth2/token as the token endpoint.",
        "pod api-7d9f8b6c5-x2x9z is the token service pod",
        "Use ORD2023110500123 as the order number.",
        "用 a1b2c3d4e5f6 作为订单号。",
        "use your_api_key_here as the API key",
    ] {
        assert!(families(text).is_empty(), "{text}: {:?}", families(text));
    }
}

/// curl's `--user name:password`, quoted or letters only.
#[test]
fn curl_user_passwords() {
    assert_eq!(
        secret_value("curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH"),
        "pRf7vG2h1L8nQkW9"
    );
    assert_eq!(
        secret_value("curl -u developer:yqDVtkqPECriaLRi https://localhost:9200"),
        "yqDVtkqPECriaLRi"
    );
    assert!(families("curl -u admin: https://localhost:9200").is_empty());
}

/// Look-alikes of the prefix and value shapes stay what they were: UUIDs,
/// revisions, lockfile digests, inline images.
#[test]
fn digests_ids_and_images_stay_clean() {
    for text in [
        "Note from the ticket: 3636dd46-ea21-11e9-81b4-2a2ae2dbcce4",
        "Rebased onto 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12 this morning.",
        "github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=",
        "checksum: eaac4cf978b6fbd480f1092cab8b233c9b949bcabfc9b598dd79a758f7243c28",
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
    ] {
        assert!(families(text).is_empty(), "{text}: {:?}", families(text));
    }
}

/// A Chinese keyword followed by more Chinese text still names the value.
#[test]
fn values_named_by_a_chinese_keyword() {
    assert_eq!(
        secret_value("请把 er7tqkrhceq4zis4n6t2q6ql3sjm 作为密钥使用。"),
        "er7tqkrhceq4zis4n6t2q6ql3sjm"
    );
}
