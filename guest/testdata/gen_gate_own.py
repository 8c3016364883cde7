#!/usr/bin/env python3
"""Writes gate-own.jsonl: the detectors' own held-aside gate cases.

Every secret is random (seeded), every identifier gets its check digits
computed here, and every sentence is written for this set. The file is kept
aside: the detectors were not tuned on it. Run from the repository root:
    python3 guest/testdata/gen_gate_own.py > guest/testdata/gate-own.jsonl
"""
import json, random, string

R = random.Random(20261201)

def rnd(alphabet, n):
    return ''.join(R.choice(alphabet) for _ in range(n))

LOW = string.ascii_lowercase + string.digits
ALNUM = string.ascii_letters + string.digits
HEX = '0123456789abcdef'

def luhn_digit(body):
    s = 0
    for k, c in enumerate(reversed(body)):
        d = int(c)
        if k % 2 == 0:
            d *= 2
            if d > 9: d -= 9
        s += d
    return str((10 - s % 10) % 10)

def iban(cc, bban):
    num = ''.join(str(int(ch, 36)) for ch in bban + cc + '00')
    return cc + '%02d' % (98 - int(num) % 97) + bban

VERHOEFF_D = [[0,1,2,3,4,5,6,7,8,9],[1,2,3,4,0,6,7,8,9,5],[2,3,4,0,1,7,8,9,5,6],[3,4,0,1,2,8,9,5,6,7],[4,0,1,2,3,9,5,6,7,8],[5,9,8,7,6,0,4,3,2,1],[6,5,9,8,7,1,0,4,3,2],[7,6,5,9,8,2,1,0,4,3],[8,7,6,5,9,3,2,1,0,4],[9,8,7,6,5,4,3,2,1,0]]
VERHOEFF_P = [[0,1,2,3,4,5,6,7,8,9],[1,5,7,6,2,8,3,0,9,4],[5,8,0,3,7,9,6,1,4,2],[8,9,1,6,0,4,3,5,2,7],[9,4,5,3,1,2,6,8,7,0],[4,2,8,6,5,7,3,9,0,1],[2,7,9,3,8,0,6,4,1,5],[7,0,4,6,9,1,3,2,5,8]]
VERHOEFF_INV = [0,4,3,2,1,5,6,7,8,9]

def verhoeff_digit(body):
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = VERHOEFF_D[c][VERHOEFF_P[(i + 1) % 8][int(ch)]]
    return str(VERHOEFF_INV[c])

def rrn(body12):
    w = [2,3,4,5,6,7,8,9,2,3,4,5]
    s = sum(int(a) * b for a, b in zip(body12, w))
    return body12 + str((11 - s % 11) % 10)

def pesel(body10):
    w = [1,3,7,9,1,3,7,9,1,3]
    s = sum(int(a) * b for a, b in zip(body10, w))
    return body10 + str((10 - s % 10) % 10)

def nric(prefix, digits):
    w = [2,7,6,5,4,3,2]
    s = sum(int(a) * b for a, b in zip(digits, w)) + (4 if prefix in 'TG' else 0)
    table = 'JZIHGFEDCBA' if prefix in 'ST' else 'XWUTRQPNMLK'
    return prefix + digits + table[s % 11]

def tfn(body8):
    w = [1,4,3,7,5,8,6,9,10]
    for last in range(10):
        d = body8 + str(last)
        if sum(int(a) * b for a, b in zip(d, w)) % 11 == 0:
            return d
    return None

CF_ODD = dict(zip('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    [1,0,5,7,9,13,15,17,19,21,1,0,5,7,9,13,15,17,19,21,2,4,18,20,11,3,6,8,12,14,16,10,22,25,24,23]))
def cf(body15):
    s = 0
    for i, ch in enumerate(body15):
        if i % 2 == 0:
            s += CF_ODD[ch]
        else:
            s += int(ch) if ch.isdigit() else ord(ch) - 65
    return body15 + chr(65 + s % 26)

def nif(n8):
    return n8 + 'TRWAGMYFPDXBNJZSQVHLCKE'[int(n8) % 23]

def nie(prefix, n7):
    return prefix + n7 + 'TRWAGMYFPDXBNJZSQVHLCKE'[int('XYZ'.index(prefix).__str__() + n7) % 23]

def personnummer(yymmdd, nnn):
    body = yymmdd + nnn
    return yymmdd + '-' + nnn + luhn_digit(body)

def hetu(ddmmyy, sep, zzz):
    return ddmmyy + sep + zzz + '0123456789ABCDEFHJKLMNPRSTUVWXY'[int(ddmmyy + zzz) % 31]

def steuer_id(body10):
    product = 10
    for ch in body10:
        s = (int(ch) + product) % 10
        if s == 0: s = 10
        product = (s * 2) % 11
    check = 11 - product
    return body10 + str(0 if check == 10 else check)

def cn_id(body17):
    w = [7,9,10,5,8,4,2,1,6,3,7,9,10,5,8,4,2]
    s = sum(int(a) * b for a, b in zip(body17, w))
    return body17 + '10X98765432'[s % 11]

cases = []
def add(cat, sub, text, needle=None, source='user', lang='en', hard=False):
    n = len(cases) + 1
    label = 'negative' if cat == 'benign' else 'positive'
    must = ('not_rejected_by_sensitivity_or_permission' if cat == 'benign'
            else 'not_active_with_payload')
    cases.append({
        'id': f'own-{cat[:3]}-{n:03d}', 'text': text,
        'scope': {'tenant': 'own', 'user': f'u-own-{n:03d}', 'thread': f'th-own-{n:03d}'},
        'source': {'kind': source, 'ref': f'own:{n}'}, 'observed_at': '2026-08-20T09:30:00Z',
        'expect': {'category': cat, 'label': label, 'subtype': sub, 'must': must,
                   'needle': needle, 'lang': lang, 'hard': hard}})

# --- secrets: provider-prefixed families (body random)
for pre, alpha, n, sent, lang in [
    ('xoxp-', string.digits, 11, 'Slack user token for the release bot: {}', 'en'),
    ('glpat-', ALNUM, 20, '把这个 GitLab 令牌记下来：{}，CI 要用', 'zh'),
    ('sk_live_', ALNUM, 24, 'Billing uses the live key {} since Monday.', 'en'),
    ('npm_', ALNUM, 36, 'publish 用的 token 是 {}', 'zh'),
    ('pat_', LOW, 40, 'The vendor issued us {} for the sync job.', 'en'),
    ('shpat_', HEX, 32, 'Shop admin access: {}', 'en'),
    ('dapi', HEX, 32, 'Databricks workspace token {} goes in the runner.', 'en'),
]:
    if pre == 'xoxp-':
        v = 'xoxp-' + rnd(string.digits, 11) + '-' + rnd(string.digits, 12) + '-' + rnd(string.digits, 13) + '-' + rnd(HEX, 32)
    else:
        v = pre + rnd(alpha, n)
    add('secret', 'prefixed:' + pre, sent.format(v), v, lang=lang)
v = 'AKIA' + rnd(string.ascii_uppercase + string.digits, 16)
add('secret', 'aws-key', f'生产环境的 access key id 是 {v}', v, lang='zh')
v = 'SG.' + rnd(ALNUM + '_-', 22) + '.' + rnd(ALNUM + '_-', 43)
add('secret', 'sendgrid', f'Mail relay key: {v}', v)
# key/value in code and config syntaxes
v = rnd(LOW, 48)
add('secret', 'code-call', f'Config loader line: System.setProperty("PAYMENTS_API_TOKEN", "{v}");', v, source='document')
v = rnd(ALNUM, 30)
add('secret', 'environ', f"settings.py 里有一行 os.environ[\"ORDER_SECRET\"] = \"{v}\"", v, source='tool', lang='zh')
v = rnd(ALNUM, 14)
add('secret', 'cli-user', f'Run it with curl --user deploy:{v} https://ci.internal/api', v)
v = rnd(ALNUM, 12) + '!'
add('secret', 'cli-flag', f'数据库迁移命令：mysql -h db01 -u admin --password {v} orders', v, lang='zh')
v = rnd(HEX, 64)
add('secret', 'yaml', f'values.yaml excerpt:\nsigning_key: {v}', v, source='document')
v = rnd(ALNUM, 26)
add('secret', 'json', f'{{"service": "ledger", "client_secret": "{v}"}}', v, source='tool')
v = 'blue ' + rnd(string.ascii_lowercase, 6) + ' harbor ' + str(R.randint(10, 99))
add('secret', 'quoted-space', f'Keep this: the vault passphrase = "{v}"', v)
v = rnd(ALNUM, 32)
add('secret', 'header', f'请求头加上 X-Api-Key: {v} 就能通过网关', v, lang='zh')
v = rnd(ALNUM, 24)
add('secret', 'webhook', f'Alerts go to https://hooks.slack.com/services/T{rnd(string.ascii_uppercase+string.digits,8)}/B{rnd(string.ascii_uppercase+string.digits,10)}/{v}', v)
v = str(R.randint(10**17, 10**18)) + '/' + rnd(ALNUM + '_-', 68)
add('secret', 'webhook', f'Discord 通知地址 https://discord.com/api/webhooks/{v}', v, lang='zh')
v = rnd(ALNUM, 16)
add('secret', 'url-password', f'The replica is at mongodb://reporter:{v}@mongo-2.internal:27017/app', v)
v = rnd(LOW, 64)
add('secret', 'standalone-entropy', f'备份脚本最后打印了这串：{v}', v, source='tool', lang='zh')
v = rnd(ALNUM + '+/', 40)
add('secret', 'key-ini', f'[storage]\naccount = logs\naccess_key = {v}', v, source='document')
v = rnd(ALNUM, 20)
add('secret', 'env', f'.env 文件：\nSTRIPE_WEBHOOK_SECRET={v}\nDEBUG=false', v, source='tool', lang='zh')
body = '\n'.join(rnd(ALNUM + '+/', 64) for _ in range(3))
add('secret', 'private-key', f'-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----', body.split('\n')[0], source='tool')
v = rnd(ALNUM, 10) + '#7'
add('secret', 'zh-keyword', f'跳板机 root 密码改成 {v} 了', v, lang='zh')
v = rnd(LOW, 40)
add('secret', 'bearer', f'curl -H "Authorization: Bearer {v}" https://api.internal/v2/jobs', v)

# --- sensitive personal data with computed checks
v = iban('DE', rnd(string.digits, 18)); sp = ' '.join(v[i:i + 4] for i in range(0, len(v), 4))
add('pii', 'iban', f'Salary goes to IBAN {sp}.', sp)
v = iban('FR', rnd(string.digits, 10) + rnd(string.digits + string.ascii_uppercase, 11) + rnd(string.digits, 2)); add('pii', 'iban', f'我的法国账户是 {v}', v, lang='zh')
b = '4' + ''.join(R.choice(string.digits) for _ in range(14)); v = b + luhn_digit(b)
add('pii', 'card', f'Charge it to {v[:4]}-{v[4:8]}-{v[8:12]}-{v[12:]} please.', v[:4] + '-' + v[4:8])
b = '52' + ''.join(R.choice(string.digits) for _ in range(13)); v = b + luhn_digit(b)
add('pii', 'card', f'客户的信用卡 {v}，有效期 11/29', v, source='tool', lang='zh')
add('pii', 'ssn-dots', 'His SSN: 512.44.7302 on the intake form.', '512.44.7302', source='tool')
add('pii', 'ssn-spaces', 'social security number 287 65 4310', '287 65 4310')
add('pii', 'nino', 'NI number for payroll: JM 52 81 06 C', 'JM 52 81 06 C')
b = '4821' + ''.join(R.choice(string.digits) for _ in range(7)); v = b + verhoeff_digit(b)
add('pii', 'aadhaar', f'Aadhaar {v[:4]} {v[4:8]} {v[8:]} was verified.', v[:4] + ' ' + v[4:8])
b = '04618273'; v = b + luhn_digit(b)
add('pii', 'ca-sin', f'Employee SIN {v[:3]} {v[3:6]} {v[6:]}', v[:3] + ' ' + v[3:6])
v = rrn('880712102345'); add('pii', 'kr-rrn', f'주민등록번호 {v[:6]}-{v[6:]} (resident registration)', v[:6])
v = pesel('9203150247'); add('pii', 'pesel', f'PESEL klienta: {v}', v, source='tool')
v = nric('S', '8812345'); add('pii', 'sg-nric', f'她的 NRIC 是 {v}', v, lang='zh')
v = tfn('87654321'); add('pii', 'au-tfn', f'My tax file number is {v[:3]} {v[3:6]} {v[6:]}.', v[:3] + ' ' + v[3:6])
v = cf('BNCLRA85T41F205'); add('pii', 'it-cf', f'Codice fiscale del paziente: {v}', v, source='tool')
v = nif('48213957'); add('pii', 'es-nif', f'DNI {v} para la factura', v)
v = personnummer('850417', '238'); add('pii', 'se-pnr', f'Personnummer {v}', v)
v = hetu('170390', '-', '427'); add('pii', 'fi-hetu', f'Henkilötunnus {v} (Finnish ID)', v)
v = steuer_id('5783196420') ; add('pii', 'de-steuer', f'Steuer-ID: {v}', v)
v = cn_id('31010419880315421'); add('pii', 'cn-id', f'身份证号码 {v}', v, lang='zh')
add('pii', 'health', 'Patient file: Laura Kim, diagnosed with type 1 diabetes, takes insulin daily.', 'type 1 diabetes', source='tool')
add('pii', 'health', '张敏确诊乳腺癌，正在化疗', '乳腺癌', source='tool', lang='zh')

# --- benign look-alikes and placeholders
for text, lang, source in [
    ('API_KEY=your_api_key_here', 'en', 'document'),
    ('export GITHUB_TOKEN=<token>', 'en', 'document'),
    ('password: [PASSWORD]', 'en', 'document'),
    ('DB_PASSWORD=${DB_PASSWORD}', 'en', 'tool'),
    ('secret_key = get_secret_key()', 'en', 'tool'),
    ('TOKEN=$(vault read -field=token secret/ci)', 'en', 'tool'),
    ('在 .env 里写 OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx 作为示例', 'zh', 'document'),
    ('aws_secret_access_key = EXAMPLEKEYEXAMPLEKEYEXAMPLEKEY', 'en', 'document'),
    ('密码处填 insert_key_here 然后保存', 'zh', 'document'),
    ('password = changeme', 'en', 'document'),
    ('api_key: "xxxxxxxxxxxxxxxx"', 'en', 'document'),
    ('token = self.settings.auth_token', 'en', 'tool'),
    ('发票号 INV-2026-0008812，金额 3,200 元', 'zh', 'user'),
    ('Order #A83920471 shipped on 2026-08-03', 'en', 'user'),
    ('git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8', 'en', 'tool'),
    ('sha256: 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae', 'en', 'tool'),
    ('requestId=7c9e6679-7425-40de-944b-e07fc1f0d541 失败，重试即可', 'zh', 'tool'),
    ('CSS class navbarCollapseToggleButtonPrimary is unused', 'en', 'tool'),
    ('The password field must be at least 12 characters long', 'en', 'user'),
    ('Set the token TTL to 3600 seconds', 'en', 'user'),
    ('我们的密码策略：90 天轮换一次', 'zh', 'user'),
    ('Ticket 2026-104-7781 was closed yesterday', 'en', 'user'),
    ('ISBN 978-0-306-40615-7 is on the reading list', 'en', 'user'),
    ('phone extension 4410, room 3021', 'en', 'user'),
]:
    add('benign', 'lookalike', text, None, source=source, lang=lang)

for c in cases:
    print(json.dumps(c, ensure_ascii=False))
