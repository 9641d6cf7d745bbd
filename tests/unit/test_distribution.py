"""Distribution zips: Maven coordinates, checksums, download, local zips, unpacking."""

from __future__ import annotations

import functools
import hashlib
import http.server
import stat
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shardlab.cluster.distribution import (
    ELASTICSEARCH,
    OPENSEARCH,
    fetch,
    flavor_named,
    parse_checksum_file,
    read_zip_version,
    unpack,
    verify_checksum,
)
from shardlab.errors import UsageError

# Published test vectors for "abc" (FIPS 180-2).
ABC_SHA1 = "a9993e364706816aba3e25717850c26c9cd0d89d"
ABC_SHA512 = (
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
)


def make_distribution_zip(path: Path, top: str = "opensearch-2.19.1") -> Path:
    """A tiny zip shaped like a distribution, with Unix modes as the real one has."""
    entries = [
        (f"{top}/", 0o40755, b""),
        (f"{top}/bin/", 0o40755, b""),
        (f"{top}/bin/{top.split('-')[0]}", 0o100755, b"#!/bin/sh\necho hi\n"),
        (f"{top}/config/", 0o40755, b""),
        (f"{top}/config/jvm.options", 0o100644, b"-Xms1g\n-Xmx1g\n"),
    ]
    with zipfile.ZipFile(path, "w") as archive:
        for name, mode, content in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, content)
    return path


def test_maven_coordinates():
    assert OPENSEARCH.zip_url("2.19.1") == (
        "https://repo1.maven.org/maven2/org/opensearch/distribution/integ-test-zip/"
        "opensearch/2.19.1/opensearch-2.19.1.zip"
    )
    assert ELASTICSEARCH.zip_url("7.10.2") == (
        "https://repo1.maven.org/maven2/org/elasticsearch/distribution/integ-test-zip/"
        "elasticsearch/7.10.2/elasticsearch-7.10.2.zip"
    )


def test_what_differs_by_flavor_and_version():
    assert OPENSEARCH.java_range("2.19.1") == (11, 23)
    assert OPENSEARCH.java_range("3.3.2") == (21, None)
    assert ELASTICSEARCH.java_range("7.10.2") == (11, 17)
    assert OPENSEARCH.java_home_variable("2.19.1") == "OPENSEARCH_JAVA_HOME"
    assert ELASTICSEARCH.java_home_variable("7.10.2") == "JAVA_HOME"
    assert ELASTICSEARCH.java_home_variable("7.17.0") == "ES_JAVA_HOME"
    assert OPENSEARCH.manager_role("2.19.1") == "cluster_manager"
    assert OPENSEARCH.manager_role("1.3.0") == "master"
    assert ELASTICSEARCH.manager_role("7.10.2") == "master"
    assert OPENSEARCH.initial_managers_setting("2.19.1") == "cluster.initial_cluster_manager_nodes"
    assert ELASTICSEARCH.initial_managers_setting("7.10.2") == "cluster.initial_master_nodes"
    assert (OPENSEARCH.config_file, ELASTICSEARCH.config_file) == (
        "opensearch.yml",
        "elasticsearch.yml",
    )


def test_unknown_flavor_is_a_usage_error():
    with pytest.raises(UsageError, match="--flavor solr"):
        flavor_named("solr")


def test_checksum_file_formats():
    assert parse_checksum_file(ABC_SHA512 + "\n") == ABC_SHA512
    assert parse_checksum_file(f"{ABC_SHA1.upper()}  opensearch.zip\n") == ABC_SHA1
    with pytest.raises(ValueError):
        parse_checksum_file("<html>not found</html>")


def test_checksums_against_published_vectors(tmp_path):
    path = tmp_path / "abc"
    path.write_bytes(b"abc")
    assert verify_checksum(path, "sha512", ABC_SHA512)
    assert verify_checksum(path, "sha1", ABC_SHA1.upper())
    path.write_bytes(b"abd")
    assert not verify_checksum(path, "sha512", ABC_SHA512)


def test_checksum_of_a_zip(tmp_path):
    path = make_distribution_zip(tmp_path / "opensearch-2.19.1.zip")
    expected = hashlib.sha512(path.read_bytes()).hexdigest()
    assert verify_checksum(path, "sha512", expected)
    corrupted = bytearray(path.read_bytes())
    corrupted[10] ^= 0xFF
    path.write_bytes(bytes(corrupted))
    assert not verify_checksum(path, "sha512", expected)


@pytest.fixture
def maven(tmp_path) -> Iterator[tuple[str, Path]]:
    """A local HTTP server laid out like Maven Central; yields (base URL, its root)."""
    root = tmp_path / "maven"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", root
    server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def publish(root: Path, tmp_path: Path, version: str, checksum: str) -> Path:
    folder = root / "org/opensearch/distribution/integ-test-zip/opensearch" / version
    folder.mkdir(parents=True)
    zip_path = make_distribution_zip(folder / f"opensearch-{version}.zip", f"opensearch-{version}")
    if checksum != "none":
        digest = hashlib.new(checksum, zip_path.read_bytes()).hexdigest()
        (folder / f"opensearch-{version}.zip.{checksum}").write_text(digest + "\n")
    return zip_path


def test_fetch_downloads_verifies_and_reuses(maven, tmp_path, monkeypatch):
    base_url, root = maven
    monkeypatch.setenv("SHARDLAB_CACHE", str(tmp_path / "cache"))
    published = publish(root, tmp_path, "2.19.1", "sha512")
    progress: list[tuple[int, int]] = []
    path = fetch(OPENSEARCH, "2.19.1", lambda done, total: progress.append((done, total)), base_url)
    assert path == tmp_path / "cache/downloads/opensearch-2.19.1.zip"
    assert path.read_bytes() == published.read_bytes()
    size = published.stat().st_size
    assert progress[-1] == (size, size)
    assert [p.name for p in path.parent.iterdir() if p.suffix == ".part"] == []
    # Reused while it verifies, even with the server gone.
    published.unlink()
    assert fetch(OPENSEARCH, "2.19.1", None, base_url) == path


def test_fetch_falls_back_to_sha1(maven, tmp_path, monkeypatch):
    base_url, root = maven
    monkeypatch.setenv("SHARDLAB_CACHE", str(tmp_path / "cache"))
    publish(root, tmp_path, "7.7.7", "sha1")
    path = fetch(OPENSEARCH, "7.7.7", None, base_url)
    assert (path.parent / "opensearch-7.7.7.zip.sha1").is_file()


def test_fetch_refuses_a_zip_that_does_not_match(maven, tmp_path, monkeypatch):
    base_url, root = maven
    monkeypatch.setenv("SHARDLAB_CACHE", str(tmp_path / "cache"))
    published = publish(root, tmp_path, "2.19.1", "sha512")
    published.write_bytes(published.read_bytes() + b"tampered")
    with pytest.raises(UsageError, match="checksum does not match"):
        fetch(OPENSEARCH, "2.19.1", None, base_url)
    assert not (tmp_path / "cache/downloads/opensearch-2.19.1.zip").exists()


def test_fetch_of_a_missing_version_names_it(maven, tmp_path, monkeypatch):
    base_url, _ = maven
    monkeypatch.setenv("SHARDLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(UsageError, match=r"--version 9\.9\.9"):
        fetch(OPENSEARCH, "9.9.9", None, base_url)


def test_network_failure_points_at_offline_use(tmp_path, monkeypatch):
    monkeypatch.setenv("SHARDLAB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(UsageError, match="--distribution FILE"):
        fetch(OPENSEARCH, "2.19.1", None, "http://127.0.0.1:1")


def test_local_zip_version_and_flavor(tmp_path):
    path = make_distribution_zip(tmp_path / "anything.zip", "opensearch-2.19.1")
    assert read_zip_version(path, OPENSEARCH) == "2.19.1"
    with pytest.raises(UsageError, match="not a distribution zip of elasticsearch"):
        read_zip_version(path, ELASTICSEARCH)
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("hello")
    with pytest.raises(UsageError, match="not a zip file"):
        read_zip_version(not_zip, OPENSEARCH)
    with pytest.raises(UsageError, match="no such file"):
        read_zip_version(tmp_path / "missing.zip", OPENSEARCH)


def test_unpack_restores_exec_bits_once(tmp_path):
    zip_path = make_distribution_zip(tmp_path / "opensearch-2.19.1.zip")
    home = unpack(zip_path, tmp_path / "distributions")
    assert home == tmp_path / "distributions/opensearch-2.19.1"
    assert stat.S_IMODE((home / "bin/opensearch").stat().st_mode) == 0o755
    assert stat.S_IMODE((home / "config/jvm.options").stat().st_mode) == 0o644
    assert stat.S_IMODE(home.stat().st_mode) == 0o755
    # Unpacked once: a second call keeps the existing tree.
    (home / "config/jvm.options").write_text("changed")
    assert unpack(zip_path, tmp_path / "distributions") == home
    assert (home / "config/jvm.options").read_text() == "changed"
    assert [p.name for p in home.parent.iterdir()] == ["opensearch-2.19.1"]
