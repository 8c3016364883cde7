#!/usr/bin/env python3
"""Peers side by side on gate cases: detect-secrets (defaults) on secrets,
presidio's pattern recognizers on sensitive personal data, each with its
false-positive rate on the benign cases of the same file.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install detect-secrets==1.5.0 presidio-analyzer
    /tmp/peers/bin/python guest/testdata/peers_gate.py guest/testdata/gate-h4-tune.jsonl [...]

detect-secrets: a case is flagged when `scan_file` with the default
plugins and filters reports anything. presidio: every predefined
`PatternRecognizer` (all languages) is run on the text without an NLP
engine (so no context boost); a case is flagged when one reports a
sensitive entity (contact, URL, date, network and location entities are
not counted), at any score and at score >= 0.5.
"""
import json, os, sys, tempfile

NOT_SENSITIVE = {'EMAIL_ADDRESS', 'PHONE_NUMBER', 'URL', 'DATE_TIME', 'IP_ADDRESS', 'MAC_ADDRESS',
                 'UK_POSTCODE', 'DE_PLZ', 'DE_KFZ', 'UK_VEHICLE_REGISTRATION', 'IN_VEHICLE_REGISTRATION',
                 'NG_VEHICLE_REGISTRATION', 'TR_LICENSE_PLATE', 'LOCATION', 'PERSON', 'NRP', 'ORGANIZATION'}


def detect_secrets_flags(texts):
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings
    out = []
    with default_settings():
        for t in texts:
            with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False, encoding='utf-8') as f:
                f.write(t + '\n')
                path = f.name
            sc = SecretsCollection()
            sc.scan_file(path)
            out.append(bool(list(sc)))
            os.unlink(path)
    return out


def presidio_recognizers():
    from presidio_analyzer import PatternRecognizer, RecognizerRegistry
    langs = ['en', 'es', 'it', 'pl', 'fi', 'de', 'ko', 'sv', 'th', 'tr']
    reg = RecognizerRegistry(supported_languages=langs)
    reg.load_predefined_recognizers(languages=langs)
    # Only recognizers of sensitive entities (the URL and e-mail ones would
    # also try to download a suffix list).
    return [r for r in reg.recognizers if isinstance(r, PatternRecognizer)
            and not set(r.supported_entities) <= NOT_SENSITIVE]


def presidio_scores(texts, recs):
    out = []
    for t in texts:
        best = 0.0
        for r in recs:
            res = r.analyze(t, entities=r.supported_entities, nlp_artifacts=None)
            for x in res or []:
                if x.entity_type not in NOT_SENSITIVE:
                    best = max(best, x.score)
        out.append(best)
    return out


def main():
    recs = presidio_recognizers()
    for path in sys.argv[1:]:
        cases = [json.loads(l) for l in open(path, encoding='utf-8') if l.strip()]
        texts = [c['text'] for c in cases]
        ds = detect_secrets_flags(texts)
        ps = presidio_scores(texts, recs)
        def rate(cat, flags):
            idx = [i for i, c in enumerate(cases) if c['expect']['category'] == cat]
            return sum(flags[i] for i in idx), len(idx)
        print(f'== {path} (n={len(cases)})')
        s, n = rate('secret', ds)
        b, nb = rate('benign', ds)
        print(f'detect-secrets 1.5.0: secret recall {s}/{n} = {s / max(n, 1):.3f}; benign flagged {b}/{nb} = {b / max(nb, 1):.3f}')
        for thr, label in ((1e-9, 'any score'), (0.5, 'score >= 0.5')):
            flags = [p >= thr for p in ps]
            s, n = rate('pii', flags)
            b, nb = rate('benign', flags)
            print(f'presidio ({len(recs)} pattern recognizers, {label}): pii recall {s}/{n} = {s / max(n, 1):.3f}; '
                  f'benign flagged {b}/{nb} = {b / max(nb, 1):.3f}')
        s, n = rate('injection', [False] * len(cases))
        print(f'injections: neither peer detects prompt injection ({n} cases)')


if __name__ == '__main__':
    main()
