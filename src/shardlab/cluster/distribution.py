"""Get a distribution zip (Maven Central or a local file) and unpack it once per version.

We use the `integ-test-zip` artifacts: the bare server with only the transport module, no
bundled JDK, no security plugin (51 MB for OpenSearch 2.19.1), which is all a benchmark
node needs and is published for both OpenSearch and the last Apache-licensed Elasticsearch.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import urllib.error
import urllib.request
import urllib.response
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shardlab.errors import UsageError
from shardlab.paths import cache_dir, distributions_dir

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
OFFLINE_HINT = "check the network, or pass --distribution FILE with the zip for offline use"

ProgressCallback = Callable[[int, int], None]  # (bytes done, bytes total or 0 if unknown)


@dataclass(frozen=True)
class Flavor:
    """What differs between OpenSearch and Elasticsearch for provisioning a node."""

    name: str  # "opensearch" | "elasticsearch"
    maven_group: str
    config_file: str  # opensearch.yml
    path_conf_variable: str  # OPENSEARCH_PATH_CONF
    tmpdir_variable: str  # OPENSEARCH_TMPDIR
    java_opts_variable: str  # OPENSEARCH_JAVA_OPTS
    new_java_home_variable: str  # OPENSEARCH_JAVA_HOME / ES_JAVA_HOME
    new_java_home_since: tuple[int, int]  # versions before this read JAVA_HOME
    manager_role_since: tuple[int, int] | None  # first version with `cluster_manager`
    java_ranges: tuple[tuple[tuple[int, int], int, int | None], ...]  # (from version, min, max)

    @property
    def artifact(self) -> str:
        return self.name

    @property
    def bin_script(self) -> str:
        return f"bin/{self.name}"

    def zip_url(self, version: str, base_url: str = MAVEN_CENTRAL) -> str:
        group = self.maven_group.replace(".", "/")
        return f"{base_url}/{group}/{self.artifact}/{version}/{self.artifact}-{version}.zip"

    def zip_name(self, version: str) -> str:
        return f"{self.artifact}-{version}.zip"

    def java_home_variable(self, version: str) -> str:
        if version_tuple(version) >= self.new_java_home_since:
            return self.new_java_home_variable
        return "JAVA_HOME"

    def manager_role(self, version: str) -> str:
        since = self.manager_role_since
        return "cluster_manager" if since and version_tuple(version) >= since else "master"

    def initial_managers_setting(self, version: str) -> str:
        if self.manager_role(version) == "cluster_manager":
            return "cluster.initial_cluster_manager_nodes"
        return "cluster.initial_master_nodes"

    def java_range(self, version: str) -> tuple[int, int | None]:
        """(min, max) Java major; the max is where the security manager stopped working."""
        wanted = version_tuple(version)
        chosen = self.java_ranges[0]
        for entry in self.java_ranges:
            if wanted >= entry[0]:
                chosen = entry
        return chosen[1], chosen[2]


OPENSEARCH = Flavor(
    name="opensearch",
    maven_group="org.opensearch.distribution.integ-test-zip",
    config_file="opensearch.yml",
    path_conf_variable="OPENSEARCH_PATH_CONF",
    tmpdir_variable="OPENSEARCH_TMPDIR",
    java_opts_variable="OPENSEARCH_JAVA_OPTS",
    new_java_home_variable="OPENSEARCH_JAVA_HOME",
    new_java_home_since=(1, 0),
    manager_role_since=(2, 0),
    # 1.x: 11-17; 2.x: 11-23 (Java 24 removed the security manager 2.x relies on);
    # 3.x dropped the security manager and needs 21+.
    java_ranges=(((1, 0), 11, 17), ((2, 0), 11, 23), ((3, 0), 21, None)),
)

ELASTICSEARCH = Flavor(
    name="elasticsearch",
    maven_group="org.elasticsearch.distribution.integ-test-zip",
    config_file="elasticsearch.yml",
    path_conf_variable="ES_PATH_CONF",
    tmpdir_variable="ES_TMPDIR",
    java_opts_variable="ES_JAVA_OPTS",
    new_java_home_variable="ES_JAVA_HOME",
    new_java_home_since=(7, 12),
    manager_role_since=None,
    # 7.x before 7.17 fails on Java 18+ (security manager disallowed by default).
    java_ranges=(((7, 0), 11, 17), ((7, 17), 11, 23), ((8, 0), 17, None)),
)

FLAVORS = {flavor.name: flavor for flavor in (OPENSEARCH, ELASTICSEARCH)}
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def version_tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def flavor_named(name: str) -> Flavor:
    try:
        return FLAVORS[name]
    except KeyError:
        raise UsageError(
            "--flavor", name, "unknown flavor", f"use one of: {', '.join(FLAVORS)}"
        ) from None


def check_version(version: str) -> str:
    if not _VERSION.match(version):
        raise UsageError("--version", version, "is not a release version", "e.g. 2.19.1")
    return version


# -- checksums ---------------------------------------------------------------------------


def parse_checksum_file(text: str) -> str:
    """Maven's `.sha512` holds the hex digest, sometimes followed by the file name."""
    words = text.split()
    if not words or not re.fullmatch(r"[0-9a-fA-F]+", words[0]):
        raise ValueError(f"not a checksum file: {text[:80]!r}")
    return words[0].lower()


def file_digest(path: Path, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def verify_checksum(path: Path, algorithm: str, expected_hex: str) -> bool:
    return file_digest(path, algorithm) == expected_hex.lower()


def _cached_checksum(zip_path: Path) -> tuple[str, str] | None:
    for algorithm in ("sha512", "sha1"):
        sidecar = zip_path.with_name(f"{zip_path.name}.{algorithm}")
        if sidecar.is_file():
            try:
                return algorithm, parse_checksum_file(sidecar.read_text())
            except ValueError:
                return None
    return None


# -- download ----------------------------------------------------------------------------


def _open(url: str, timeout_s: float = 60.0) -> urllib.response.addinfourl:
    request = urllib.request.Request(url, headers={"User-Agent": "shardlab"})
    return urllib.request.urlopen(request, timeout=timeout_s)  # type: ignore[no-any-return]


def _published_checksum(url: str) -> tuple[str, str] | None:
    """(algorithm, hex) from the `.sha512` beside the zip, else `.sha1`; None if neither."""
    for algorithm in ("sha512", "sha1"):
        try:
            with _open(f"{url}.{algorithm}") as response:
                return algorithm, parse_checksum_file(response.read().decode())
        except urllib.error.HTTPError as error:
            if error.code == 404:
                continue
            raise
    return None


def fetch(
    flavor: Flavor,
    version: str,
    progress: ProgressCallback | None = None,
    base_url: str = MAVEN_CENTRAL,
) -> Path:
    """The verified zip in cache_dir()/downloads, downloaded once; reused while it verifies."""
    check_version(version)
    downloads = cache_dir() / "downloads"
    target = downloads / flavor.zip_name(version)
    cached = _cached_checksum(target) if target.is_file() else None
    if cached is not None and verify_checksum(target, *cached):
        return target

    url = flavor.zip_url(version, base_url)
    downloads.mkdir(parents=True, exist_ok=True)
    try:
        published = _published_checksum(url)
        if published is None:
            raise UsageError(
                "--version",
                version,
                f"no {flavor.name} {version} on {base_url}",
                "check the version number, or pass --distribution FILE",
            )
        algorithm, expected_hex = published
        part = _download(url, downloads, algorithm, expected_hex, progress)
    except urllib.error.HTTPError as error:
        raise UsageError("download", url, f"HTTP {error.code}", OFFLINE_HINT) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise UsageError("download", url, f"failed ({reason})", OFFLINE_HINT) from None
    for stale in ("sha512", "sha1"):
        target.with_name(f"{target.name}.{stale}").unlink(missing_ok=True)
    target.with_name(f"{target.name}.{algorithm}").write_text(expected_hex + "\n")
    os.replace(part, target)
    return target


def _download(
    url: str,
    directory: Path,
    algorithm: str,
    expected_hex: str,
    progress: ProgressCallback | None,
) -> Path:
    """Stream into a temp file beside the target, hashing as it comes; return its path."""
    digest = hashlib.new(algorithm)
    descriptor, part_name = tempfile.mkstemp(dir=directory, suffix=".part")
    part = Path(part_name)
    try:
        with os.fdopen(descriptor, "wb") as out, _open(url) as response:
            total_bytes = int(response.headers.get("Content-Length") or 0)
            done_bytes = 0
            while chunk := response.read(1 << 20):
                out.write(chunk)
                digest.update(chunk)
                done_bytes += len(chunk)
                if progress is not None:
                    progress(done_bytes, total_bytes)
        if digest.hexdigest() != expected_hex:
            raise UsageError(
                "download",
                url,
                f"{algorithm} checksum does not match the published one",
                "retry; if it persists, download the zip yourself and pass --distribution FILE",
            )
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return part


# -- local zips --------------------------------------------------------------------------


def read_zip_version(zip_path: Path, flavor: Flavor) -> str:
    """The version of a local distribution zip (from its `<flavor>-<version>/` top folder)."""
    subject = "--distribution"
    if not zip_path.is_file():
        raise UsageError(subject, zip_path, "no such file", "give the path of a downloaded zip")
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError) as error:
        raise UsageError(subject, zip_path, f"not a zip file ({error})", "") from None
    tops = {name.split("/", 1)[0] for name in names}
    pattern = re.compile(rf"^{flavor.name}-(\d+\.\d+\.\d+)$")
    matches = [m for top in tops if (m := pattern.match(top))]
    if len(matches) != 1:
        raise UsageError(
            subject,
            zip_path,
            f"is not a distribution zip of {flavor.name}",
            f"expected one top folder {flavor.name}-<version>/",
        )
    top, version = matches[0].group(0), matches[0].group(1)
    script = f"{top}/{flavor.bin_script}"
    if script not in names:
        raise UsageError(subject, zip_path, f"has no {script}", "is it a server distribution?")
    return version


# -- unpack ------------------------------------------------------------------------------


def unpack(zip_path: Path, root: Path | None = None) -> Path:
    """Unpack once under distributions_dir(); return the distribution's home directory.

    zipfile drops Unix modes, so they are restored from each entry's external_attr (the
    bin/ scripts must stay executable). The tree is built in a temp dir and renamed into
    place, so a half-unpacked tree is never mistaken for a finished one.
    """
    root = root or distributions_dir()
    with zipfile.ZipFile(zip_path) as archive:
        top = archive.namelist()[0].split("/", 1)[0]
        home = root / top
        if home.is_dir():
            return home
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=root, prefix=f".{top}."))
        try:
            for entry in archive.infolist():
                _extract(archive, entry, staging)
            for directory in [staging, *staging.rglob("*")]:
                if directory.is_dir() and not directory.is_symlink():
                    directory.chmod(0o755)  # whatever the umask: the service user reads it
            try:
                os.replace(staging / top, home)
            except OSError:
                if not home.is_dir():  # another process won the race: theirs is fine
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return home


def _extract(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, staging: Path) -> None:
    target = (staging / entry.filename).resolve()
    if not target.is_relative_to(staging.resolve()):
        raise UsageError("--distribution", entry.filename, "escapes the zip's folder", "")
    mode = entry.external_attr >> 16
    if entry.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        target.chmod(0o755)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISLNK(mode):
        target.symlink_to(archive.read(entry).decode())
        return
    with archive.open(entry) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    # Keep the zip's permission bits but always readable by others (the service user).
    permissions = (stat.S_IMODE(mode) if mode else 0o644) | 0o444
    if permissions & 0o111:
        permissions |= 0o555
    target.chmod(permissions)
