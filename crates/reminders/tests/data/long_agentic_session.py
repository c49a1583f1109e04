#!/usr/bin/env python3
"""Writes a long generated Claude Code 2.1 transcript for `agentctx replay` (see
docs/design/reminders.md, "Reminders before and after").

Eight user turns of 40 model requests each (320 requests). Each response is split as Claude
Code records it: one record per content block sharing the response's `message.id`. A response
is a tool call alone, text then a tool call, or thinking then a tool call (seeded, so the file
is the same on every run); the last request of a turn answers in text. TodoWrite is called on
the first request of each turn, and in the even turns also every 15 requests.

With `--plan`, the first two user turns are typed in plan mode (`permissionMode: "plan"` on
their user records, as shift+tab records it), the rest in the default mode: 80 requests of
planning for the plan mode reminder (see docs/design/reminders.md, "Standing reminders").

Usage: python3 long_agentic_session.py [--plan] OUT.jsonl
"""

import json
import random
import sys
import uuid

SESSION = "5b0c1d2e-3f40-4a51-8b62-7c83d94ea0b1"
CWD = "/home/dev/src/ledger"
rng = random.Random(26)
parent = None
clock = 0


def stamp():
    global clock
    clock += 1
    return f"2026-01-15T10:{clock // 3600 % 60:02d}:{clock // 60 % 60:02d}.{clock % 60:03d}Z"


def record(kind, message, **extra):
    global parent
    this = str(uuid.UUID(int=rng.getrandbits(128)))
    line = {
        "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD,
        "sessionId": SESSION, "version": "2.1.3", "gitBranch": "main", "type": kind,
        "message": message, "uuid": this, "timestamp": stamp(),
    }
    line.update(extra)
    parent = this
    return json.dumps(line)


def assistant(blocks, tokens):
    msg_id = "msg_" + uuid.UUID(int=rng.getrandbits(128)).hex[:24]
    lines = []
    for block in blocks:
        usage = {"input_tokens": 3, "cache_creation_input_tokens": 200,
                 "cache_read_input_tokens": tokens, "output_tokens": 60}
        lines.append(record("assistant", {
            "model": "claude-sonnet-4-5-20250929", "id": msg_id, "type": "message",
            "role": "assistant", "content": [block], "stop_reason": None,
            "stop_sequence": None, "usage": usage}))
    return lines


def tool_use(name, payload):
    return {"type": "tool_use", "id": "toolu_" + uuid.UUID(int=rng.getrandbits(128)).hex[:22],
            "name": name, "input": payload}


def tool_result(call, text):
    return record("user", {"role": "user", "content": [
        {"tool_use_id": call["id"], "type": "tool_result", "content": text}]},
        toolUseResult={"type": "text"})


def todos(turn, step):
    items = [f"Step {n} of task {turn}" for n in range(1, 5)]
    done = min(step // 10, 4)
    return [{"content": item, "status": "completed" if i < done else
             ("in_progress" if i == done else "pending"), "activeForm": item}
            for i, item in enumerate(items)]


def main(out, plan=False):
    lines = []
    tokens = 15000
    for turn in range(1, 9):
        lines.append(record("user", {"role": "user", "content":
                                     f"Task {turn}: change the ledger's module {turn} and test it."},
                            permissionMode="plan" if plan and turn <= 2 else "default"))
        for step in range(40):
            tokens += 350
            if step == 39:
                lines += assistant([{"type": "text", "text": f"Task {turn} is done."}], tokens)
                continue
            if step == 0 or (turn % 2 == 0 and step % 15 == 0):
                call = tool_use("TodoWrite", {"todos": todos(turn, step)})
            else:
                name = rng.choice(["Read", "Bash", "Edit", "Grep"])
                call = tool_use(name, {"file_path": f"{CWD}/src/m{turn}.rs"} if name != "Bash"
                                else {"command": "cargo test"})
            shape = rng.random()
            if shape < 0.4:
                blocks = [call]
            elif shape < 0.75:
                blocks = [{"type": "text", "text": f"Next, step {step}."}, call]
            else:
                blocks = [{"type": "thinking", "thinking": f"Think about step {step}.",
                           "signature": "c2ln"}, call]
            lines += assistant(blocks, tokens)
            lines.append(tool_result(call, f"ok {turn}.{step}"))
    with open(out, "w") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[-1], plan="--plan" in args[:-1])
