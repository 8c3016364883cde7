#!/usr/bin/env python3
"""Draw unlabelled candidate pools from public dialogue corpora (fixed seed).

usage: extract_pools.py SRC_DIR OUT_DIR
SRC_DIR holds the upstream files exactly as published (see ../README.md for
where each comes from and its licence). Writes one pool per corpus; each line
is later labelled by hand (label_pools.py applies the reviewed labels).
"""
import csv, json, random, re, sys, os

SRC, OUT = sys.argv[1], sys.argv[2]
rng = random.Random(24)

def norm(t):
    return re.sub(r"\s+", " ", t).strip().strip('"').strip()

def crosswoz():
    out = []
    for split in ("val", "test"):
        d = json.load(open(os.path.join(SRC, f"{split}.json"), encoding="utf-8"))
        for did in sorted(d, key=int):
            for i, m in enumerate(d[did]["messages"]):
                out.append({"corpus": "crosswoz", "upstream": f"{split}/{did}/{i}",
                            "speaker": m["role"], "text": norm(m["content"])})
    return out

def spc():
    out = []
    for split in ("valid", "test"):
        rows = list(csv.reader(open(os.path.join(SRC, f"Synthetic-Persona-Chat_{split}.csv"), encoding="utf-8")))[1:]
        for r, row in enumerate(rows):
            for p, persona in enumerate(row[0].split("\n")):
                if persona.strip():
                    out.append({"corpus": "spc-persona", "upstream": f"{split}/{r}/persona1/{p}",
                                "speaker": "user", "text": norm(persona)})
            for t, line in enumerate(row[2].split("\n")):
                m = re.match(r"User [12]: (.*)", line.strip())
                if m:
                    out.append({"corpus": "spc-dialogue", "upstream": f"{split}/{r}/turn/{t}",
                                "speaker": "user", "text": norm(m.group(1))})
    return out

def madial():
    out = []
    for lang in ("zh", "en"):
        for line in open(os.path.join(SRC, f"MADial-Bench-{lang}-memory.json"), encoding="utf-8"):
            for k, v in json.loads(line).items():
                out.append({"corpus": f"madial-{lang}-memory", "upstream": f"{lang}/memory/{k}",
                            "speaker": "agent", "text": norm(v["event"]), "time": v["time"]})
        for n, line in enumerate(open(os.path.join(SRC, f"MADial-Bench-{lang}-dialogue.json"), encoding="utf-8")):
            d = json.loads(line)
            d.setdefault("id", n)  # the English file's line n is dialogue id n
            if d["id"] % 2 == 0:   # even ids are the retrieval bench's: never used
                continue
            for t, u in enumerate(d["dialogue"]):
                m = re.match(r"<([^>]+)>:\s*(.*)", u.strip())
                if m and m.group(1) not in ("BOD", "EOD"):
                    who = "agent" if m.group(1) == "Assistant" else "user"
                    out.append({"corpus": f"madial-{lang}-dialogue", "upstream": f"{lang}/dialogue/{d['id']}/{t}",
                                "speaker": who, "text": norm(m.group(2))})
    return out

def abcd():
    out = []
    for c in json.load(open(os.path.join(SRC, "abcd_sample.json"), encoding="utf-8")):
        for t, (who, text) in enumerate(c["original"]):
            sp = {"agent": "agent", "customer": "user", "action": "tool"}[who]
            out.append({"corpus": "abcd", "upstream": f"sample/{c['convo_id']}/{t}", "speaker": sp, "text": norm(text)})
    return out

def sample(pool, n, key=None):
    seen, uniq = set(), []
    for x in pool:
        if x["text"] and x["text"] not in seen and len(x["text"]) >= 2:
            seen.add(x["text"]); uniq.append(x)
    rng.shuffle(uniq)
    return uniq[:n]

os.makedirs(OUT, exist_ok=True)
cw = crosswoz()
pools = {
    "crosswoz": sample([x for x in cw if x["speaker"] == "usr"], 620) + sample([x for x in cw if x["speaker"] == "sys"], 140),
    "spc": sample([x for x in spc() if x["corpus"] == "spc-persona"], 170) + sample([x for x in spc() if x["corpus"] == "spc-dialogue"], 560),
    "madial": [],
    "abcd": sample(abcd(), 80),
}
md = madial()
for c, n in (("madial-zh-memory", 110), ("madial-en-memory", 50), ("madial-zh-dialogue", 230), ("madial-en-dialogue", 110)):
    pools["madial"] += sample([x for x in md if x["corpus"] == c and (x["speaker"] == "user" or rng.random() < 0.25)], n)
for name, rows in pools.items():
    with open(os.path.join(OUT, f"{name}.pool.jsonl"), "w", encoding="utf-8") as f:
        for x in rows:
            x["speaker"] = {"usr": "user", "sys": "agent"}.get(x["speaker"], x["speaker"])
            f.write(json.dumps(x, ensure_ascii=False) + "\n")
    print(name, len(rows))

# Second draw (its own seed, so the pools above stay as they were labelled):
# more persona statements and the rest of the MADial memory records.
rng2 = random.Random(2424)
taken = {x["text"] for rows in pools.values() for x in rows}
extra = [x for x in spc() if x["corpus"] == "spc-persona" and x["text"] not in taken]
seen, uniq = set(), []
for x in extra:
    if x["text"] not in seen:
        seen.add(x["text"]); uniq.append(x)
rng2.shuffle(uniq)
extra = uniq[:330] + [x for x in md if x["corpus"].endswith("memory") and x["text"] not in taken]
with open(os.path.join(OUT, "extra.pool.jsonl"), "w", encoding="utf-8") as f:
    for x in extra:
        f.write(json.dumps(x, ensure_ascii=False) + "\n")
print("extra", len(extra))
