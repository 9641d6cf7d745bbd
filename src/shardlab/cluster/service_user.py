"""Who runs the JVM: OpenSearch and Elasticsearch refuse to start as root.

As root the node runs as the unprivileged system account `shardlab` (created if missing),
owns its node directories, and must be able to reach the distribution and the lab: that is
checked by running `test` as the account itself, since modes, ACLs and mount options all
play a part (a SHARDLAB_HOME under /root, mode 700 on Debian, is the usual failure).
Otherwise the node runs as whoever runs shardlab.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from shardlab.errors import UsageError

SERVICE_ACCOUNT = "shardlab"
NOLOGIN_SHELL = "/usr/sbin/nologin"


@dataclass(frozen=True)
class RunAs:
    """The account the JVM runs as; `switched` when root hands the node to the service user."""

    user: str
    uid: int
    gid: int
    switched: bool
    created: bool = False

    def notice(self) -> str | None:
        """One line for the user when the account differs from theirs, else None."""
        if not self.switched:
            return None
        made = " (created it)" if self.created else ""
        return (
            f"running as root: the cluster's JVM runs as the unprivileged account "
            f"'{self.user}'{made}, since OpenSearch and Elasticsearch refuse to run as root"
        )

    def popen_kwargs(self) -> dict[str, object]:
        """Extra subprocess arguments to start a process as this account."""
        if not self.switched:
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def current_run_as(account: str = SERVICE_ACCOUNT) -> RunAs:
    """Self when not root; as root, the service account, created if it does not exist."""
    if os.geteuid() != 0:
        return RunAs(pwd.getpwuid(os.geteuid()).pw_name, os.geteuid(), os.getegid(), False)
    created = False
    try:
        entry = pwd.getpwnam(account)
    except KeyError:
        _create_account(account)
        entry = pwd.getpwnam(account)
        created = True
    return RunAs(account, entry.pw_uid, entry.pw_gid, True, created)


def _create_account(account: str) -> None:
    if shutil.which("useradd") is None:
        raise UsageError(
            "service account",
            account,
            "cannot be created: no useradd on this system",
            f"create a system user '{account}' yourself, or run shardlab as a normal user",
        )
    shell = NOLOGIN_SHELL if Path(NOLOGIN_SHELL).exists() else "/bin/false"
    command = ["useradd", "--system", "--no-create-home", "--shell", shell]
    try:
        grp.getgrnam(account)
        command += ["--gid", account]  # a group of that name exists: useradd needs -g
    except KeyError:
        pass
    completed = subprocess.run([*command, account], capture_output=True, text=True)
    if completed.returncode != 0:
        raise UsageError(
            "service account",
            account,
            f"useradd failed: {completed.stderr.strip() or completed.returncode}",
            f"create a system user '{account}' yourself, or run shardlab as a normal user",
        )


def hand_over(run_as: RunAs, directory: Path) -> None:
    """Make `directory` and everything in it belong to the account (no-op for self)."""
    if not run_as.switched:
        return
    os.chown(directory, run_as.uid, run_as.gid)
    for root, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            os.chown(os.path.join(root, name), run_as.uid, run_as.gid, follow_symlinks=False)


@dataclass(frozen=True)
class Access:
    """One thing the account must be able to do: `test <flag> <path>` must succeed."""

    path: Path
    flag: str  # "-r", "-w" or "-x"
    why: str  # "distribution", "lab directory", ...
    hint: str = "set SHARDLAB_HOME to a directory all users can enter, e.g. /var/lib/shardlab"


def check_access(run_as: RunAs, needs: Iterable[Access]) -> None:
    """Run `test` as the account for each need; UsageError on the first that fails."""
    if not run_as.switched:
        return
    for need in needs:
        completed = subprocess.run(
            ["test", need.flag, str(need.path)],
            **run_as.popen_kwargs(),  # type: ignore[call-overload]
        )
        if completed.returncode != 0:
            raise UsageError(
                need.why,
                need.path,
                f"is not reachable by the service account '{run_as.user}' "
                f"(test {need.flag} failed), probably a parent directory is private",
                need.hint,
            )
