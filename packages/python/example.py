"""The README's example: remember, recall with an explanation, pack, forget."""
from engram_memory import Engram

with Engram(principal="acme", now="2026-08-01T10:00:00+08:00") as engram:
    scope = {"tenant": "acme", "user": "u42"}
    for text in ["I prefer answers in English", "以后请叫我林工", "my password is hunter2"]:
        d = engram.remember({"text": text, "scope": scope, "source": {"kind": "user", "ref": "chat-1"}})
        denied = [f"{name}: {g['reason']}" for name, g in d["gates"].items() if not g["pass"]]
        print(f"{d['disposition']:<8} {text}  ({denied[0] if denied else d['kind']})")
    top = engram.recall({"query": "which language should answers use?", "scope": scope, "k": 1})["results"][0]
    print(f"recall:  {top['text']}  score {top['score']:.3f}, similarity {top['features']['similarity']:.2f}, admitted {top['admission']['admit']}")
    packed = engram.pack({"budget": 200, "scope": scope, "query": "answer the user", "system": "You are helpful."})
    print(f"pack:    {packed['tokens']} of {packed['budget']} tokens, {len(packed['sections'])} sections")
    print(f"forget:  {len(engram.forget({'scope': scope, 'text': 'English'})['deleted'])} memory deleted")
