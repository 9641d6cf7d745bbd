"""Find a Java runtime that can run a given distribution (none of the zips bundles a JDK).

Order: the flavor's own variable (OPENSEARCH_JAVA_HOME / ES_JAVA_HOME), JAVA_HOME, `java` on
PATH, then every /usr/lib/jvm/* (newest suitable first). A flavor variable is an explicit
choice and must fit; JAVA_HOME and PATH are often set for other programs, so when they hold a
Java of the wrong age the search goes on (OpenSearch 3.x needs 21+ while PATH has 17).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from shardlab.errors import UsageError

JVM_ROOT = Path("/usr/lib/jvm")


@dataclass(frozen=True)
class JavaRuntime:
    home: Path
    major: int
    version: str

    @property
    def java_bin(self) -> Path:
        return self.home / "bin" / "java"


@dataclass(frozen=True)
class JavaVersion:
    """What `java -XshowSettings:properties -version` (or plain `-version`) says."""

    major: int
    version: str
    home: Path | None  # only the properties listing names it


_PROPERTY = re.compile(r"^\s*(java\.home|java\.version)\s*=\s*(.+?)\s*$", re.MULTILINE)
_VERSION_LINE = re.compile(r'^\S+ version "([^"]+)"', re.MULTILINE)


def major_of(version: str) -> int:
    """'1.8.0_292' -> 8, '11.0.2' -> 11, '21' -> 21, '25-ea' -> 25."""
    match = re.match(r"(\d+)(?:\.(\d+))?", version)
    if match is None:
        raise ValueError(f"not a Java version: {version!r}")
    first = int(match.group(1))
    if first == 1 and match.group(2) is not None:
        return int(match.group(2))
    return first


def parse_java_version(output: str) -> JavaVersion | None:
    """Read the version (and home, if listed) from `java ... -version` output (stderr)."""
    properties = dict(_PROPERTY.findall(output))
    version = properties.get("java.version")
    if version is None:
        line = _VERSION_LINE.search(output)
        if line is None:
            return None
        version = line.group(1)
    home = properties.get("java.home")
    return JavaVersion(major_of(version), version, Path(home) if home else None)


def probe(java_bin: Path) -> JavaRuntime | None:
    """Run one `java` binary and say what it is; None if it does not run."""
    try:
        completed = subprocess.run(
            [str(java_bin), "-XshowSettings:properties", "-version"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    parsed = parse_java_version(completed.stderr + completed.stdout)
    if parsed is None:
        return None
    home = parsed.home or Path(os.path.realpath(java_bin)).parent.parent
    return JavaRuntime(home=home, major=parsed.major, version=parsed.version)


def _fits(runtime: JavaRuntime, min_major: int, max_major: int | None) -> bool:
    return runtime.major >= min_major and (max_major is None or runtime.major <= max_major)


def _wanted(min_major: int, max_major: int | None) -> str:
    if max_major is None:
        return f"Java {min_major} or newer"
    return f"Java {min_major} to {max_major}"


def _from_variable(name: str) -> JavaRuntime | None:
    value = os.environ.get(name)
    if not value:
        return None
    java_bin = Path(value) / "bin" / "java"
    if not java_bin.is_file():
        raise UsageError(
            name, value, "has no bin/java", f"point {name} at a Java home, or unset it"
        )
    runtime = probe(java_bin)
    if runtime is None:
        raise UsageError(name, value, "bin/java does not run", f"fix or unset {name}")
    return runtime


def _scan(root: Path) -> Iterable[JavaRuntime]:
    if not root.is_dir():
        return
    seen: set[str] = set()
    for entry in sorted(root.iterdir()):
        java_bin = entry / "bin" / "java"
        real = os.path.realpath(java_bin)
        if real in seen or not java_bin.is_file():
            continue
        seen.add(real)
        if (runtime := probe(java_bin)) is not None:
            yield runtime


def find_java(
    min_major: int,
    max_major: int | None = None,
    home_variable: str = "OPENSEARCH_JAVA_HOME",
    jvm_root: Path = JVM_ROOT,
) -> JavaRuntime:
    """The first suitable Java in the documented order; UsageError saying what to install."""
    wanted = _wanted(min_major, max_major)
    rejected: list[str] = []

    explicit = _from_variable(home_variable)
    if explicit is not None:
        if _fits(explicit, min_major, max_major):
            return explicit
        raise UsageError(
            home_variable,
            os.environ[home_variable],
            f"is Java {explicit.version}, this distribution needs {wanted}",
            f"point {home_variable} at a suitable Java, or unset it",
        )

    candidates: list[tuple[str, JavaRuntime | None]] = []
    if home_variable != "JAVA_HOME":
        candidates.append(("JAVA_HOME", _from_variable("JAVA_HOME")))
    on_path = shutil.which("java")
    candidates.append(("java on PATH", probe(Path(on_path)) if on_path else None))
    for where, runtime in candidates:
        if runtime is None:
            continue
        if _fits(runtime, min_major, max_major):
            return runtime
        rejected.append(f"{where} is {runtime.version}")

    suitable = [r for r in _scan(jvm_root) if _fits(r, min_major, max_major)]
    if suitable:
        return max(suitable, key=lambda r: (r.major, r.version))

    found = f" ({'; '.join(rejected)})" if rejected else ""
    package = f"openjdk-{min_major}-jre-headless"
    raise UsageError(
        "Java",
        None,
        f"no {wanted} found{found}",
        f"install one, e.g. apt-get install {package}, or set JAVA_HOME",
    )
