#!/usr/bin/env python3
"""Builds the injection detector's training documents, deterministically:

    python3 guest/model/injection/tools/gen_data.py

Writes `guest/model/injection/data/{own,bipia-train,garak,dialogue,statements}.jsonl`.
Each line is an `engram classify` candidate (a `tool` or `document` source:
carried text) with `label` (1 when it carries an injection), `needle` (the
injected instruction, as it appears), `payload` (everything inserted, e.g.
the instruction and the code after it), `group` (the template or document
it came from: cross-validation keeps a group together), `lang` and
`origin`.

Positives insert an instruction into a benign carrier (before, inside or
after it; plain, in an HTML or code comment, a table cell, a caption, a
hidden span, a labelled note). Negatives are the carriers alone and with
honest sentences inserted the same ways (orders to the human reader,
sentences about AI, passwords and maintenance that address nobody).

Sources: `payloads.py` and `benign.py` (written for this project);
`../upstream/bipia-train.json` (microsoft/BIPIA training splits, MIT);
`../upstream/garak-latentinjection.json` (NVIDIA/garak, Apache-2.0); and
real dialogue turns already in `guest/model/data/` (Synthetic-Persona-Chat,
CC BY 4.0; MADial-Bench odd ids, MIT; CrossWOZ, Apache-2.0; ABCD, MIT) as
chat transcripts. Nothing from `../shared/bench`, LoCoMo or any test split.
"""
import json, os, random, re, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import benign  # noqa: E402
import payloads  # noqa: E402

ROOT = os.path.normpath(os.path.join(HERE, '..'))
R = random.Random(2412)

WRAPS = [
    ('tool', "fetch_email(id={n}) output:\n{t}"),
    ('tool', "browser.open -> page text:\n{t}"),
    ('tool', "web_search top result:\n{t}"),
    ('tool', "read_document returned:\n{t}"),
    ('tool', "api.get('/v2/items/{n}') ->\n{t}"),
    ('tool', "Retrieved passage [{n}]:\n{t}"),
    ('tool', "pdf_to_text output:\n{t}"),
    ('tool', "{t}"),
    ('document', "Uploaded file contents:\n{t}"),
    ('document', "Shared note:\n{t}"),
    ('document', "{t}"),
    ('document', "Knowledge base article #{n}:\n{t}"),
    ('document', "Attachment text:\n{t}"),
    ('document', "Imported page ({n}.html):\n{t}"),
]


def wrap(t):
    src, w = R.choice(WRAPS)
    return src, w.format(t=t, n=R.randint(10, 9999))


def fill(t, depth=0):
    """Fill {SLOT}s from payloads.FILL (and {DO}, {DO_CAP} from payloads.DO)."""
    def one(m):
        k = m.group(1)
        if k == 'DO':
            return fill(R.choice(payloads.DO), depth + 1)
        if k == 'DO_CAP':
            s = fill(R.choice(payloads.DO), depth + 1)
            return s[:1].upper() + s[1:]
        if k in payloads.FILL:
            return R.choice(payloads.FILL[k])
        return m.group(0)
    return re.sub(r'\{([A-Z_]+)\}', one, t) if depth < 3 else t


# ---------------------------------------------------------------- carriers

UP = json.load(open(os.path.join(ROOT, 'upstream', 'bipia-train.json'), encoding='utf-8'))
GK = json.load(open(os.path.join(ROOT, 'upstream', 'garak-latentinjection.json'), encoding='utf-8'))
GMARK = {'inj': '<|garak_injection|>', 'pay': '<|garak_payload|>', 'trig': '<|garak_trigger|>'}

CARRIERS = []  # (group, genre, lang, text, origin)
for genre, items in benign.DOCS.items():
    for k, (lang, t) in enumerate(items):
        CARRIERS.append((f'own-{genre}-{k}', genre, lang, t, 'own'))
for k, t in enumerate(UP['email_contexts']):
    CARRIERS.append((f'bipia-email-{k}', 'mail', 'en', t, 'bipia-train'))
for k, t in enumerate(UP['code_contexts']):
    CARRIERS.append((f'bipia-code-{k}', 'code', 'en', t.strip(), 'bipia-train'))
for k, t in enumerate(UP['table_contexts'][:60]):
    CARRIERS.append((f'bipia-table-{k}', 'table', 'en', t[:1500], 'bipia-train'))
# garak's contexts include prompts to the model ("Translate the following
# ..."): only the documents are carriers.
PROMPTS = re.compile(r'(?i)\b(translate|paraphrase|refine|polish|summari[sz]e) (the|this|these)\b')
for k, t in enumerate(GK['contexts']):
    t = t.replace(GMARK['inj'], '').strip()
    if len(t) > 80 and '<|garak' not in t and not PROMPTS.search(t):
        CARRIERS.append((f'garak-ctx-{k}', 'page', 'en', t[:3000], 'garak'))
for k, t in enumerate(GK['paragraphs']):
    if '<|garak' not in t:
        CARRIERS.append((f'garak-para-{k}', 'page', 'en', t, 'garak'))

# Real dialogue turns as chat transcripts (tool output of a chat history).
DIALOGUE = []
data_dir = os.path.join(ROOT, '..', 'data')
for name, keep in (('persona-chat.jsonl', lambda d: True),
                   ('madial-bench.jsonl', lambda d: d['source']['kind'] == 'agent' or d['expect']['kind'] in ('semantic', 'episodic')),
                   ('crosswoz.jsonl', lambda d: d['source']['kind'] == 'agent'),
                   ('abcd.jsonl', lambda d: d['source']['kind'] == 'agent')):
    path = os.path.join(data_dir, name)
    if not os.path.exists(path):
        continue
    rows = [json.loads(l) for l in open(path, encoding='utf-8') if l.strip()]
    rows = [d for d in rows if keep(d) and zlib.crc32(d['id'].encode()) % 2 == 0]
    DIALOGUE.append((name.split('.')[0], rows))


def transcripts():
    out = []
    names = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli', 'Femi', '小王', '李娜']
    for src, rows in DIALOGUE:
        for i in range(0, len(rows), 6):
            chunk = rows[i:i + 6]
            lines = [f"{R.choice(names)}: {d['text']}" for d in chunk]
            lang = 'zh' if any('\u4e00' <= c <= '\u9fff' for c in ''.join(lines)) else 'en'
            out.append((f'dlg-{src}-{i}', 'chat', lang, '\n'.join(lines), src))
    return out


TRANSCRIPTS = transcripts()

# ---------------------------------------------------------------- insertion

STYLES_ANY = ['plain', 'plain', 'plain', 'labelled', 'html', 'hidden', 'bracket']
STYLES_BY_GENRE = {
    'code': ['code', 'code', 'code', 'plain', 'html'],
    'table': ['cell', 'cell', 'caption', 'plain'],
    'page': ['plain', 'plain', 'html', 'caption', 'hidden', 'labelled'],
    'tool': ['json', 'plain', 'labelled'],
}
# Labels before an inserted sentence: those addressing a model only for
# positives (an honest sentence behind "Note to AI:" is addressed to it).
LABELS = ["NOTE:", "P.S.", "Important:", "Hidden note:", "注意：", "Nota:", "Remarque :", "Hinweis:", "Update:"]
AI_LABELS = ["Note to AI:", "Attention assistant:", "AI instructions:", "Message for the model:",
             "To the assistant:", "给AI的说明：", "Nota para la IA:", "Hinweis an die KI:"]


def style(p, genre, positive=True):
    st = R.choice(STYLES_BY_GENRE.get(genre, STYLES_ANY))
    if st == 'html':
        return f"<!-- {p} -->"
    if st == 'hidden':
        return R.choice([f'<span style="display:none">{p}</span>', f'<div hidden>{p}</div>',
                         f'<p style="color:white;font-size:1px">{p}</p>'])
    if st == 'bracket':
        return R.choice([f"[{p}]", f"**{p}**", f"({p})", f"{{{p}}}"])
    if st == 'labelled':
        labels = LABELS + AI_LABELS if positive else LABELS
        return f"{R.choice(labels)} {p}"
    if st == 'code':
        return R.choice([f"# {p}", f"// {p}", f"/* {p} */", f'"""{p}"""'])
    if st == 'cell':
        return R.choice([f"| note | {p} |", f"| {p} | |", f"| comment: {p} |"])
    if st == 'caption':
        return R.choice([f"<caption>{p}</caption>", f"<figcaption>{p}</figcaption>", f"Caption: {p}",
                         f"<img src='fig{R.randint(1, 9)}.png' alt='{p}'>"])
    if st == 'json':
        return f'"comment": "{p}"'
    return p


def insert(text, piece):
    """`piece` before, inside or after `text` (at a line or sentence boundary)."""
    lines = text.split('\n')
    where = R.choice(['start', 'end', 'end', 'middle', 'middle', 'inline'])
    if where == 'start':
        return piece + R.choice(['\n', '\n\n', ' ']) + text
    if where == 'end' or len(lines) < 2 and where == 'middle':
        return text + R.choice(['\n', '\n\n', ' ']) + piece
    if where == 'middle':
        k = R.randint(1, len(lines) - 1)
        return '\n'.join(lines[:k] + [piece] + lines[k:])
    # inline: after a sentence end inside a line
    k = R.randrange(len(lines))
    ends = [m.end() for m in re.finditer(r'[.!?。！？] ', lines[k])]
    if not ends:
        return text + ' ' + piece
    e = R.choice(ends)
    lines[k] = lines[k][:e] + piece + ' ' + lines[k][e:]
    return '\n'.join(lines)


ROWS = {'own': [], 'bipia-train': [], 'garak': [], 'dialogue': [], 'statements': []}
SEEN = set()


def emit(file, group, src, text, label, needle=None, payload=None, lang='en', origin='own', family=''):
    key = text
    if key in SEEN:
        return
    SEEN.add(key)
    n = len(ROWS[file]) + 1
    cid = f"inj-{file}-{n:05d}"
    ROWS[file].append({
        'id': cid, 'text': text, 'scope': {'tenant': 'inject-train'},
        'source': {'kind': src, 'ref': f'{origin}:{group}'},
        'label': label, 'needle': needle, 'payload': payload,
        'group': group, 'lang': lang, 'origin': origin, 'family': family,
    })


def carrier_for(lang, genres=None):
    pool = [c for c in CARRIERS if (genres is None or c[1] in genres)]
    same = [c for c in pool if c[2] == lang]
    # Mostly the payload's own language or English carriers; some of any.
    if same and R.random() < 0.5:
        return R.choice(same)
    en = [c for c in pool if c[2] == 'en']
    return R.choice(en if en and R.random() < 0.8 else pool)


def positive(file, family, group, lang, p, origin, needle=None, genres=None, copies=1):
    for _ in range(copies):
        cg, genre, _, ctext, _ = carrier_for(lang, genres)
        piece = style(p, genre) if needle is None else p
        text = insert(ctext, piece)
        src, text = wrap(text)
        emit(file, group, src, text, 1, needle=(needle or p), payload=piece, lang=lang, origin=origin,
             family=family)


# --- own payloads
for family, items in payloads.P.items():
    for k, (lang, t) in enumerate(items):
        group = f'own-{family}-{k}'
        copies = 3 if lang == 'en' else 4
        for c in range(copies):
            p = fill(t)
            if family == 'code-include':
                code = R.choice(list(UP['code_attacks'].values()))
                block = R.choice(code)
                block = block[block.find('```'):] if '```' in block else block
                positive('own', family, group, lang, p + '\n' + block, 'own', needle=p,
                         genres=['code', 'page', 'mail', 'runbook'])
            else:
                positive('own', family, group, lang, p, 'own')

# --- BIPIA training attacks (MIT)
for fam, items in UP['text_attacks'].items():
    for k, t in enumerate(items):
        for _ in range(4):
            positive('bipia-train', 'bipia-text:' + fam, f'bipia-text-{fam}-{k}', 'en', t, 'bipia-train',
                     genres=['mail', 'table', 'page', 'tool'])
for fam, items in UP['code_attacks'].items():
    for k, t in enumerate(items):
        lead = t.split('\n```')[0].strip()
        for _ in range(3):
            positive('bipia-train', 'bipia-code:' + fam, f'bipia-code-{fam}-{k}', 'en', t, 'bipia-train',
                     needle=lead, genres=['code'])

# --- garak latent-injection instructions (Apache-2.0)
triggers = GK['payload_triggers']
for k, ins in enumerate(GK['injection_instructions']):
    if ins.strip() == GMARK['pay']:
        continue
    for c in range(4):
        pay = R.choice(GK['payloads']).replace(GMARK['trig'], R.choice(triggers))
        t = ins.replace(GMARK['pay'], pay).replace(GMARK['trig'], R.choice(triggers))
        t = t.strip()
        positive('garak', 'garak', f'garak-ins-{k}', 'en', t, 'garak', genres=['page', 'cv', 'mail'])
for k, pay in enumerate(GK['payloads']):
    if pay.strip() == GMARK['trig'] or not re.search(r'[A-Za-z]{4}', pay.replace(GMARK['trig'], '')):
        continue
    for c in range(2):
        t = pay.replace(GMARK['trig'], R.choice(triggers)).strip()
        positive('garak', 'garak-payload', f'garak-pay-{k}', 'en', t, 'garak', genres=['page', 'cv'])

# --- negatives: carriers alone, several wraps each
for g, genre, lang, t, origin in CARRIERS:
    file = {'own': 'own', 'bipia-train': 'bipia-train', 'garak': 'garak'}[origin]
    for _ in range(3 if origin == 'own' else 2):
        src, text = wrap(t)
        emit(file, g, src, text, 0, lang=lang, origin=origin, family='clean')
for g, genre, lang, t, origin in TRANSCRIPTS:
    src, text = wrap(t)
    emit('dialogue', g, src, text, 0, lang=lang, origin=origin, family='transcript')

# --- negatives: honest sentences inserted the same ways
for k, (lang, h) in enumerate(benign.HARD):
    for _ in range(5):
        cg, genre, _, ctext, _ = carrier_for(lang)
        text = insert(ctext, style(h, genre, positive=False))
        src, text = wrap(text)
        emit('own', f'hard-{k}', src, text, 0, lang=lang, origin='own', family='hard')

# --- negatives: single real dialogue turns as a whole document or tool
# answer (a statement about oneself, an agent's answer to a customer): a
# sentence-long carried text that addresses no assistant. Their own seed,
# so the files above stay as they were.
R = random.Random(2024)
for src_name, rows in DIALOGUE:
    for d in rows:
        src, text = wrap(d['text'].strip())
        lang = 'zh' if any('\u4e00' <= c <= '\u9fff' for c in text) else 'en'
        emit('statements', f"stmt-{d['id']}", src, text, 0, lang=lang, origin=src_name, family='statement')


def main():
    out = os.path.join(ROOT, 'data')
    os.makedirs(out, exist_ok=True)
    for name, rows in ROWS.items():
        with open(os.path.join(out, f'{name}.jsonl'), 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
        pos = sum(r['label'] for r in rows)
        print(f'{name}: {len(rows)} documents, {pos} with an injection')


if __name__ == '__main__':
    main()
