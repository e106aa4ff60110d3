"""``doctor``'s look at the address ``serve`` will listen on: free, and if not, taken by whom.

The address is the one in the centre's unit (``init`` writes ``--host`` and ``--port`` into
``systemd/alley-poker.service``), or given to ``doctor``.  It is tried as gunicorn will try
it (a bind with ``SO_REUSEADDR``: a port whose last connections are still closing is free).
Who holds a taken port is found in ``/proc``: the listening socket's inode in
``/proc/net/tcp{,6}``, then the process with that socket among its open files (every process
as root, one's own otherwise).
"""

from __future__ import annotations

import errno
import re
import shlex
import socket
from pathlib import Path

#: ``serve``'s own defaults, when no unit says otherwise.
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000

_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's "st" column
_HOST = re.compile(r"--host[ =](\S+)")
_PORT = re.compile(r"--port[ =](\d+)")


def address_in_unit(unit: Path) -> tuple[str, int]:
    """``(host, port)`` of the ``serve`` line of ``unit``; serve's defaults where it has none."""
    host, port = DEFAULT_HOST, DEFAULT_PORT
    if unit.is_file():
        for line in unit.read_text(encoding="utf-8").splitlines():
            if line.startswith("ExecStart=") and " serve" in line:
                found_host, found_port = _HOST.search(line), _PORT.search(line)
                host = found_host.group(1) if found_host else host
                port = int(found_port.group(1)) if found_port else port
    return host, port


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == _LISTEN and \
                    int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def port_holder(port: int) -> tuple[int, str] | None:
    """``(pid, command line)`` of a process listening on TCP ``port``, if one can be seen."""
    wanted = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    if not wanted:
        return None
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        try:
            for descriptor in (process / "fd").iterdir():
                if descriptor.readlink().name in wanted or str(descriptor.readlink()) in wanted:
                    words = (process / "cmdline").read_bytes().split(b"\0")
                    return int(process.name), shlex.join(
                        word.decode(errors="replace") for word in words if word)
        except OSError:  # gone, or not ours to look into
            continue
    return None


def check_port(host: str, port: int, *, config_file: Path | None = None) -> list[str]:
    """Whether ``serve`` could listen on ``host:port``; a holder serving this very centre
    (``config_file`` on its command line) is the centre itself, running: no problem."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
            return []
        except OSError as error:
            if error.errno == errno.EADDRNOTAVAIL:
                return [f"The service is to listen on {host}, which is not an address of this "
                        "machine (ip -brief address lists them); change --host in its unit."]
            if error.errno not in (errno.EADDRINUSE, errno.EACCES):
                return [f"The service cannot listen on {host}:{port}: {error.strerror}."]
            if error.errno == errno.EACCES:
                return [f"The service may not listen on port {port} (below 1024 needs root); "
                        "give the unit a port of 1024 or more (--port) and put nginx in front."]
    holder = port_holder(port)
    if holder is None:
        who = f"another process (sudo ss -ltnp 'sport = :{port}' names it)"
    else:
        pid, command = holder
        if config_file is not None and str(config_file) in command:
            return []  # this centre, already serving
        who = f"process {pid} ({command})"
    return [f"Port {port} is taken by {who}: 'serve' would fail with 'Connection in use'. "
            "Stop that process, or give the centre another port (--port in its unit)."]
