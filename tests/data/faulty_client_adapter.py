#!/usr/bin/env python3
"""A client adapter that misbehaves on purpose (tests/test_client_adapters.py).

    faulty_client_adapter.py MODE [PIDFILE]

It is examples/adapters/offset_store_client.py, except when it answers a
stream request: ``crash`` exits with code 3, ``hang`` never answers, ``garbage``
prints a line that is not JSON, ``overflow`` sends a start of 2^64, ``slow``
sleeps 2 ms before each answer (within any timeout), ``ok`` answers. The
``data-*`` modes misbehave on the two ``data`` questions of an accepted resume
(written at once, the stream between them): ``data-garbage`` answers the first
(after ``accepted``) with a line that is not JSON, ``data-crash`` exits with code 3
and ``data-hang`` never answers at the second (after ``stream_end``),
``data-garbage-crash`` does both. PIDFILE: where it appends its process id when
it starts.
"""

import importlib.util
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location(
    "offset_store_client", HERE.parents[1] / "examples" / "adapters" / "offset_store_client.py"
)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

mode = sys.argv[1]
if len(sys.argv) > 2:
    with open(sys.argv[2], "a") as pids:
        pids.write(f"{os.getpid()}\n")
client = module.Client(forget_snapshot=False)
after = ""  # the event before this message
for line in sys.stdin:
    if not line.strip():
        continue
    message = json.loads(line)
    kind = message["type"]
    if kind == "data" and after == "accepted" and mode in ("data-garbage", "data-garbage-crash"):
        print("this is not JSON", flush=True)
        continue
    if kind == "data" and after == "stream_end":
        if mode in ("data-crash", "data-garbage-crash"):
            sys.exit(3)
        if mode == "data-hang":
            time.sleep(3600)
    after = kind
    if kind == "hello":
        answer = {"client": f"faulty-{mode}"}
    elif kind == "stream_request":
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        answer = client.stream_request()
        if mode == "overflow":
            answer["start"] = 2**64
    elif kind == "data":
        answer = {"data": client.data()}
    else:
        client.receive(message)
        continue
    if mode == "slow":
        time.sleep(0.002)
    print(json.dumps(answer), flush=True)
