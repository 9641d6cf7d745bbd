"""Bad input: one line naming the problem, exit code 2, no traceback (no cluster needed)."""

import os
import tempfile
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .cli_helpers import shardlab


def assert_one_line_error(result, *fragments):
    assert result.returncode == 2, result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--shards", "0"], ["--shards 0", "at least 1"]),
        (["--refresh", "banana"], ["--refresh banana", "1s, 30s"]),
        (["--clients", "-1"], ["--clients -1", "at least 1"]),
        (["--clients", "many"], ["--clients", "integer"]),
        (["--duration", "forever"], ["--duration forever"]),
        (["--variant", "huge"], ["--variant huge", "bulk or bigbulk"]),
        (["--target", "localhost"], ["--target localhost"]),
        (["--no-such-option"], ["--no-such-option"]),
        (["--index", ""], ["--index ''", "is empty"]),
        (["--index", "*", "--force"], ["--index '*'"]),
        (["--index", "_all", "--force"], ["--index '_all'"]),
        (["--index", "x?pretty"], ["--index 'x?pretty'"]),
        (["--rate", "nan"], ["--rate nan"]),
        (["--seed", "-1"], ["--seed -1"]),
        (["--threads", "100000"], ["--threads 100000"]),
        (["--interval", "0.0000000001s"], ["--interval", "at least 1ms"]),
        (["--bulk-bytes", "10gb"], ["--bulk-bytes", "max_content_length"]),
        (["--bulk-docs", "10", "--bulk-bytes", "1mb"], ["not both"]),
        (["--target", "http://127.0.0.1:99999"], ["valid port"]),
        (["--password", "x"], ["--password", "needs --user"]),
    ],
)
def test_bad_options(args, fragments, tmp_path):
    result = shardlab("run", "systembase", *args, "--store", str(tmp_path / "s.sqlite"))
    assert_one_line_error(result, *fragments)


def test_unknown_workload(tmp_path):
    assert_one_line_error(shardlab("run", "nosuch", "--store", str(tmp_path / "s")), "nosuch")


def test_a_target_that_does_not_answer(tmp_path):
    result = shardlab(
        "run", "systembase", "--target", "http://127.0.0.1:1", "--store", str(tmp_path / "s.sqlite")
    )
    assert_one_line_error(result, "http://127.0.0.1:1", "no answer")


def test_missing_java(tmp_path):
    empty = tmp_path / "no-java-here"
    empty.mkdir()
    home = tempfile.mkdtemp(prefix="shardlab-home-")  # no lab running there
    os.chmod(home, 0o755)
    result = shardlab(
        "run",
        "systembase",
        "--duration",
        "5s",
        env={"SHARDLAB_HOME": home, "JAVA_HOME": str(empty), "OPENSEARCH_JAVA_HOME": ""},
    )
    assert_one_line_error(result, "JAVA_HOME", str(empty))


def test_show_of_an_unknown_run(tmp_path):
    assert_one_line_error(shardlab("runs", "show", "999", "--store", str(tmp_path / "s")), "999")


class _Answer(BaseHTTPRequestHandler):
    status = 200
    content_type = "application/json"
    body = b"{}"

    def do_GET(self):
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_HEAD = do_GET

    def log_message(self, *args):
        pass


@contextmanager
def http_server(status, content_type, body):
    handler = type(
        "Handler", (_Answer,), {"status": status, "content_type": content_type, "body": body}
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_secured_cluster_without_credentials(tmp_path):
    # what OpenSearch's security plugin answers without credentials
    body = (
        b'{"error":{"root_cause":[{"type":"security_exception","reason":"Missing authentication'
        b' information for REST request [/]"}],"type":"security_exception","reason":"Missing'
        b' authentication information for REST request [/]"},"status":401}'
    )
    with http_server(401, "application/json", body) as url:
        result = shardlab("run", "systembase", "--target", url, "--store", str(tmp_path / "s"))
    assert_one_line_error(result, "HTTP 401", "security_exception", "--user and --password")


def test_a_target_that_is_not_a_search_cluster(tmp_path):
    with http_server(200, "text/html", b"<html>hello</html>") as url:
        result = shardlab("run", "systembase", "--target", url, "--store", str(tmp_path / "s"))
    assert_one_line_error(result, url, "does not answer like OpenSearch or Elasticsearch")
