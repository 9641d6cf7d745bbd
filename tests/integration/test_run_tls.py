"""`shardlab run` against https: a real OpenSearch behind a real TLS front."""

import pytest

from .certificates import self_signed_cert
from .cli_helpers import shardlab, store_arg
from .tls_proxy import tls_proxy

pytestmark = pytest.mark.opensearch


@pytest.fixture
def https_node(local_opensearch, tmp_path):
    cert, key = self_signed_cert(tmp_path)
    backend_port = int(local_opensearch.urls[0].rsplit(":", 1)[1])
    with tls_proxy(backend_port, cert, key) as port:
        yield f"https://127.0.0.1:{port}", cert


def run_https(url, tmp_path, *extra):
    return shardlab(
        "run",
        "systembase",
        "--target",
        url,
        "--duration",
        "3s",
        "--shards",
        "1",
        "--replicas",
        "0",
        "--clients",
        "2",
        *extra,
        *store_arg(tmp_path),
    )


def test_https_with_the_cluster_ca(https_node, tmp_path):
    url, cert = https_node
    result = run_https(url, tmp_path, "--ca-cert", str(cert))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "(matches)" in result.stdout
    assert "requests got no HTTP answer" not in result.stdout


def test_https_insecure_accepts_a_self_signed_certificate(https_node, tmp_path):
    url, _ = https_node
    result = run_https(url, tmp_path, "--insecure")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "(matches)" in result.stdout


def test_https_with_an_untrusted_certificate_is_one_line(https_node, tmp_path):
    url, _ = https_node
    result = run_https(url, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "not trusted" in lines[0] and "--ca-cert" in lines[0]
