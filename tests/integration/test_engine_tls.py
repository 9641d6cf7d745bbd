"""The native engine over https, against a real HTTPS server in this process (Python's
http.server wrapped with ssl), with a self-signed certificate made by the openssl CLI."""

from __future__ import annotations

import json
import shutil
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from shardlab import _engine

from .certificates import self_signed_cert
from .test_engine_sink import make_spec, run_all

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")

ITEM = {"index": {"_index": "sink", "_id": "0", "result": "created", "status": 201}}


class BulkHandler(BaseHTTPRequestHandler):
    """Answers every POST like a healthy cluster: errors false, one item per action line."""

    protocol_version = "HTTP/1.1"  # keep-alive
    server: HttpsSink

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        actions = sum(
            1 for line in body.split(b"\n") if line.startswith((b'{"index"', b'{"create"'))
        )
        self.server.count(actions)
        answer = json.dumps({"took": 0, "errors": False, "items": [ITEM] * actions}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class HttpsSink(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, cert: Path, key: Path) -> None:
        super().__init__(("127.0.0.1", 0), BulkHandler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.socket = context.wrap_socket(self.socket, server_side=True)
        self.lock = threading.Lock()
        self.docs = 0
        self.requests = 0

    def count(self, docs: int) -> None:
        with self.lock:
            self.docs += docs
            self.requests += 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client refusing the certificate, or closing its connection at the end

    @property
    def port(self) -> int:
        return int(self.server_address[1])


@dataclass
class Server:
    sink: HttpsSink
    cert: Path

    def url(self, host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.sink.port}"


@pytest.fixture(params=["ca-true", "leaf"])
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    cert, key = self_signed_cert(tmp_path, leaf=request.param == "leaf")
    sink = HttpsSink(cert, key)
    thread = threading.Thread(target=sink.serve_forever, daemon=True)
    thread.start()
    yield Server(sink, cert)
    sink.shutdown()
    sink.server_close()
    thread.join(5)


def run_tls(url: str, tls: dict[str, Any], stopped_by: str = "docs") -> _engine.Totals:
    spec = make_spec(
        url, clients=2, stop={"duration_s": None, "docs": 5000}, tls=tls, unreachable_timeout_s=1.0
    )
    _, totals = run_all(_engine.Engine(spec))
    assert totals.stopped_by == stopped_by
    return totals


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_https_with_the_certificate_as_ca_file(server: Server, host: str) -> None:
    totals = run_tls(server.url(host), {"verify": True, "ca_file": str(server.cert)})
    c = totals.counters
    assert c.docs_acked == 5000 == server.sink.docs, totals.errors
    assert c.requests_ok == 5 == server.sink.requests
    assert c.requests_transport == 0


def test_https_without_verification_accepts_the_self_signed_certificate(
    server: Server,
) -> None:
    totals = run_tls(server.url(), {"verify": False, "ca_file": None})
    assert totals.counters.docs_acked == 5000 == server.sink.docs, totals.errors


def test_https_with_an_untrusted_certificate_sends_nothing(server: Server) -> None:
    """A failed handshake is a connection that could not be made: nothing is sent, the
    target backs off, and the run gives up when it stays unreachable."""
    totals = run_tls(server.url(), {"verify": True}, stopped_by="unreachable")
    c = totals.counters
    assert c.requests == 0 == c.requests_transport
    assert c.docs_acked == 0 == server.sink.docs
    assert c.docs_not_sent == 2000  # each client's one bulk
    assert c.connect_errors >= 1
    (error,) = totals.errors
    assert error.kind == "connect"
    assert error.example.startswith("tls handshake 127.0.0.1:")
    assert "invalid peer certificate" in error.example


def test_a_bad_ca_file_fails_when_the_engine_is_built(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(_engine.SpecError, match=r"^tls\.ca_file: cannot read .*missing\.pem"):
        _engine.Engine(make_spec("https://127.0.0.1:1", tls={"ca_file": str(missing)}))
    empty = tmp_path / "empty.pem"
    empty.write_text("no certificate here\n")
    with pytest.raises(_engine.SpecError, match=r"^tls\.ca_file: no certificate in "):
        _engine.Engine(make_spec("https://127.0.0.1:1", tls={"ca_file": str(empty)}))
    with pytest.raises(_engine.SpecError, match=r"^tls\.bogus: unknown field"):
        _engine.Engine(make_spec("https://127.0.0.1:1", tls={"bogus": 1}))
