#!/usr/bin/env python3
"""Draws the upstream parts of the injection detector's training data from
pinned commits of two openly licensed projects (never their test splits) and
writes them to `guest/model/injection/upstream/`:

- microsoft/BIPIA (MIT), commit 1a2a91da6bb12838e05d1b2e54d98e2f37b835f3:
  every attack of the *training* attack files (`benchmark/text_attack_train.json`,
  `benchmark/code_attack_train.json`) and the *training* contexts of the
  e-mail, code and table tasks (`benchmark/{email,code,table}/train.jsonl`;
  120 tables drawn with a fixed seed). The `*_test*` files are never read.
- NVIDIA/garak (Apache-2.0), commit cafbe992780df70015de7295ca026b70c4629ada
  (`garak/probes/latentinjection.py`): the latent-injection probes'
  injection instructions, payloads and triggers, and their benign contexts
  and paragraphs (reports, resumes, fact snippets), with garak's markers
  left in place for the generator to fill.

    python3 guest/model/injection/tools/vendor_upstream.py BIPIA_GIT_DIR GARAK_GIT_DIR
"""
import ast, json, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'upstream')
BIPIA_COMMIT = '1a2a91da6bb12838e05d1b2e54d98e2f37b835f3'
GARAK_COMMIT = 'cafbe992780df70015de7295ca026b70c4629ada'


def show(git_dir, commit, path):
    return subprocess.run(['git', '--git-dir', git_dir, 'show', f'{commit}:{path}'],
                          capture_output=True, check=True).stdout.decode('utf-8')


def bipia(git_dir):
    text = json.loads(show(git_dir, BIPIA_COMMIT, 'benchmark/text_attack_train.json'))
    code = json.loads(show(git_dir, BIPIA_COMMIT, 'benchmark/code_attack_train.json'))
    email = [json.loads(l)['context'] for l in show(git_dir, BIPIA_COMMIT, 'benchmark/email/train.jsonl').splitlines() if l.strip()]
    code_ctx = []
    for l in show(git_dir, BIPIA_COMMIT, 'benchmark/code/train.jsonl').splitlines():
        if l.strip():
            c = json.loads(l)['context']
            code_ctx.append('\n'.join(c) if isinstance(c, list) else c)
    tables = [json.loads(l)['context'] for l in show(git_dir, BIPIA_COMMIT, 'benchmark/table/train.jsonl').splitlines() if l.strip()]
    tables = random.Random(7).sample(tables, 120)
    return {
        'source': f'microsoft/BIPIA, commit {BIPIA_COMMIT}: benchmark/text_attack_train.json, '
                  'benchmark/code_attack_train.json, benchmark/{email,code,table}/train.jsonl (training splits only). '
                  'MIT licence, (c) Microsoft Corporation.',
        'text_attacks': text, 'code_attacks': code,
        'email_contexts': email, 'code_contexts': code_ctx, 'table_contexts': tables,
    }


MARKERS = {'INJECTION_MARKER': '<|garak_injection|>', 'PAYLOAD_MARKER': '<|garak_payload|>',
           'TRIGGER_MARKER': '<|garak_trigger|>'}
FIELDS = ('injection_instructions', 'payloads', 'payload_triggers', 'contexts', 'paragraphs')


def value(node):
    """A literal, an f-string with garak's markers, or a concatenation or
    repetition of those; None for anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(v.value)
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in MARKERS:
                parts.append(MARKERS[v.value.id])
            else:
                return None
        return ''.join(parts)
    if isinstance(node, ast.List):
        items = [value(e) for e in node.elts]
        return items if all(i is not None for i in items) else None
    if isinstance(node, ast.BinOp):
        a, b = value(node.left), value(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Mult):
            return a * b
    return None


def garak(git_dir):
    src = show(git_dir, GARAK_COMMIT, 'garak/probes/latentinjection.py')
    out = {f: [] for f in FIELDS}
    for cls in ast.parse(src).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for st in cls.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                name = st.targets[0].id
                if name in FIELDS:
                    v = value(st.value)
                    if isinstance(v, list):
                        for s in v:
                            if isinstance(s, str) and s.strip() and s not in out[name]:
                                out[name].append(s)
    return {
        'source': f'NVIDIA/garak, commit {GARAK_COMMIT}: garak/probes/latentinjection.py (class attributes). '
                  'Apache License 2.0, (c) NVIDIA Corporation & Affiliates; markers <|garak_*|> as in garak.',
        **out,
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in (('bipia-train.json', bipia(sys.argv[1])), ('garak-latentinjection.json', garak(sys.argv[2]))):
        with open(os.path.join(OUT, name), 'w', encoding='utf-8') as f:
            json.dump(data, f, ensure_ascii=False, indent=1)
            f.write('\n')
        print(name, {k: len(v) for k, v in data.items() if isinstance(v, list)})


if __name__ == '__main__':
    main()
