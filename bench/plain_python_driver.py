"""The plain-Python baseline driver for bench/driver_throughput.py.

What a careful Python benchmark script would do: generate the same `systembase` documents
with the same distributions (`random`, `uuid.uuid4()`, `orjson.dumps` per document, one
clock read per bulk like the native engine), build 1000-document NDJSON bodies and send
them over one keep-alive `http.client.HTTPConnection`, reading every response.
"""

from __future__ import annotations

import argparse
import http.client
import random
import uuid
from datetime import UTC, datetime

import orjson

NAMES = ["checkout", "order", "search", "payment"]
MESSAGES = [
    "Incoming request from code",
    "incoming operation succeeded with code",
    "Operation completed time",
    "transaction performed",
]
SEVERITIES = ["info", "warning", "transaction", "verbose"]
APP_IDS = [
    "4D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "5D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "6D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "7D24BD62-20BF-4D74-B6DC-31313ABADB82",
]
BIG = "x" * 12_000
ACTION = b'{"index":{}}\n'


def make_doc(rnd: random.Random, timestamp: str, big: bool) -> dict[str, object]:
    host = rnd.randrange(20)
    doc: dict[str, object] = {
        "@timestamp": timestamp,
        "name": rnd.choice(NAMES),
        "message": rnd.choice(MESSAGES),
        "severityCode": rnd.randrange(10),
        "severity": rnd.choice(SEVERITIES),
        "hostname": f"Hostname{host}",
        "hostip": f"10.1.0.{host}",
        "pid": rnd.randrange(10),
        "tid": rnd.randrange(10),
        "appId": rnd.choice(APP_IDS),
        "appName": f"application{host}",
        "appVersion": rnd.randrange(5),
        "type": rnd.randrange(6),
        "subtype": rnd.randrange(6),
        "correlationId": str(uuid.uuid4()),
        "os": "linux",
        "osVersion": "14.1.5",
        "parameters": "{key:value,key:value}",
    }
    if big:
        doc["data1"] = BIG
        doc["data2"] = BIG
    return doc


def build_body(rnd: random.Random, n: int, big: bool) -> bytes:
    now = datetime.now(UTC)
    timestamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    parts = []
    for _ in range(n):
        parts.append(ACTION)
        parts.append(orjson.dumps(make_doc(rnd, timestamp, big)) + b"\n")
    return b"".join(parts)


def run(host: str, port: int, path: str, docs: int, variant: str, bulk: int = 1000) -> int:
    """Send `docs` documents; return how many the server acknowledged."""
    rnd = random.Random(42)
    conn = http.client.HTTPConnection(host, port)
    headers = {"Content-Type": "application/x-ndjson"}
    acked = 0
    left = docs
    while left > 0:
        n = min(bulk, left)
        body = build_body(rnd, n, variant == "bigbulk")
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        answer = resp.read()
        if resp.status == 200 and b'"errors":false' in answer[:64]:
            acked += n
        left -= n
    conn.close()
    return acked


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--docs", type=int, default=100_000)
    p.add_argument("--variant", choices=["bulk", "bigbulk"], default="bulk")
    a = p.parse_args()
    print(run("127.0.0.1", a.port, "/systembase/_bulk", a.docs, a.variant))


if __name__ == "__main__":
    main()
