"""The admin client passes over a node that does not answer, as the load does."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shardlab.cluster.client import ClusterClient
from shardlab.errors import UsageError


class _Node(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def closed_port() -> int:
    """A port where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def live_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Node)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_dead_first_node_is_passed_over_and_the_live_one_kept(live_url):
    dead = f"http://127.0.0.1:{closed_port()}"
    client = ClusterClient([dead, live_url], timeout_s=2)
    assert client.get("/_count") == {"path": "/_count"}
    assert client.url == live_url  # kept: the next call does not try the dead node first
    assert client.get("/x") == {"path": "/x"}


def test_no_node_answering_is_one_usage_error_naming_the_last_tried():
    dead = [f"http://127.0.0.1:{closed_port()}" for _ in range(2)]
    client = ClusterClient(dead, timeout_s=2)
    with pytest.raises(UsageError, match="no answer from the cluster"):
        client.get("/")
