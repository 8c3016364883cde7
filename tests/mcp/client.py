"""A real MCP client (the Python `mcp` package) driving `engram mcp`.

Usage: client.py ENGRAM DB TENANT USER [EXTRA ARGS…]
Spawns `ENGRAM mcp --db DB --tenant TENANT --user USER EXTRA…`, lists the tools,
runs remember -> recall -> list_memories -> memory_history -> pack_context ->
forget -> recall, then remembers two inferences (held pending), reviews
them (review_memories: approve one, reject the other) and lists the result,
records an operation (record_operation: submitted, the same again,
succeeded, a refused change) and looks operations up (get_operation),
remembers something without a `source` (taken as the agent's) and lists
what is pending, and prints one JSON object with what each step returned.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def payload(result):
    """The structured content of a tool result, or its text, and the error flag."""
    data = result.structuredContent
    if data is None and result.content:
        text = result.content[0].text
        try:
            data = json.loads(text)
        except ValueError:
            data = text
    return {"is_error": bool(result.isError), "data": data}


async def main():
    engram, db, tenant, user = sys.argv[1:5]
    extra = sys.argv[5:]
    params = StdioServerParameters(
        command=engram,
        args=["mcp", "--db", db, "--tenant", tenant, "--user", user, *extra],
    )
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.serverInfo.name
            tools = await session.list_tools()
            out["tools"] = {
                t.name: {"description": t.description, "schema": t.inputSchema}
                for t in tools.tools
            }
            call = session.call_tool
            out["remember"] = payload(await call("remember", {
                "text": "I prefer green tea in the morning.",
                "source": {"kind": "user", "ref": "evt-1"},
                "kind_hint": "semantic",
                "subject": f"user:{user}",
                "predicate": "morning_drink",
                "object": "green tea",
            }))
            query = {"query": "what does the user drink in the morning"}
            out["recall_before"] = payload(await call("recall", query))
            out["list"] = payload(await call("list_memories", {"statuses": ["active"]}))
            memory_id = out["remember"]["data"].get("memory_id")
            out["history"] = payload(await call("memory_history", {"id": memory_id}))
            out["pack"] = payload(await call("pack_context", {
                "budget": 300, "query": "what to drink",
                "messages": [{"role": "user", "text": "Coffee or tea?"}],
            }))
            out["forget"] = payload(await call("forget", {"memory_id": memory_id}))
            out["recall_after"] = payload(await call("recall", query))
            out["bad_call"] = payload(await call("forget", {}))
            out["pending"] = [payload(await call("remember", c)) for c in [
                {"text": "The user prefers dark mode in the dashboard", "source": {"kind": "behavior", "ref": "evt-ui-88"}, "kind_hint": "semantic", "subject": f"user:{user}",
                 "predicate": "ui_theme", "object": "dark"},
                {"text": "order-service 部署在 AWS", "source": {"kind": "agent", "ref": "run-17"},
                 "kind_hint": "semantic", "subject": "order-service", "predicate": "部署在", "object": "AWS"},
            ]]
            listed = payload(await call("list_memories", {"statuses": ["pending"]}))
            out["list_pending"] = listed
            items = (listed["data"] or {}).get("items", []) if isinstance(listed["data"], dict) else []
            verdicts = [
                {"id": m["id"], "revision": m["revision"], "verdict": v, "reference": f"mcp:{user}"}
                for m, v in zip(sorted(items, key=lambda m: m["text"]), ["approve", "reject"])
            ]
            out["bad_review"] = payload(await call("review_memories", {
                "items": [dict(verdicts[0], verdict="maybe")] if verdicts else []}))
            out["review"] = payload(await call("review_memories", {"items": verdicts}))
            out["list_after_review"] = payload(await call("list_memories", {}))
            # Execution records: a refund submitted, retried, confirmed;
            # then a changed final status is refused, and lookups are exact.
            refund = {"operation_id": "op_891", "tool": "issue_refund", "status": "submitted",
                      "idempotency_key": "payment-42-order-991", "scope": {"thread": "t1"}}
            out["op_submitted"] = payload(await call("record_operation", refund))
            out["op_duplicate"] = payload(await call("record_operation", refund))
            out["op_succeeded"] = payload(await call("record_operation", dict(
                refund, status="succeeded", result_ref="artifact://tool-results/op_891.json")))
            out["op_refused"] = payload(await call("record_operation", dict(refund, status="failed")))
            out["op_get"] = payload(await call("get_operation", {"operation_id": "op_891"}))
            out["op_get_other_user"] = payload(await call("get_operation", {"operation_id": "op_u2"}))
            out["op_get_unknown"] = payload(await call("get_operation", {"operation_id": "op_89"}))
            out["op_recall"] = payload(await call("recall", {"query": "issue_refund op_891 refund"}))
            # No `source`: the model is the one speaking, not the user.
            out["remember_unsourced"] = payload(await call("remember", {
                "text": "The user's favourite airline is KLM",
                "kind_hint": "semantic",
                "subject": f"user:{user}",
                "predicate": "favourite_airline",
                "object": "KLM",
            }))
            out["list_unsourced"] = payload(await call("list_memories", {"statuses": ["pending"]}))
    print(json.dumps(out))


asyncio.run(main())
