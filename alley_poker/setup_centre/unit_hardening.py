"""The sandbox ``init`` writes into every systemd unit: what a network service that writes one
folder needs, and nothing more.

Each directive is written with the reason beside it (docs/deployment.md explains them all, with
``systemd-analyze security``'s rating of the units).  What a unit still may do: read the
installed program and the centre's configuration, write the centre's data folder (the ledger,
its WAL, the backups), listen and connect over IPv4/IPv6 and Unix sockets, and, for the units
that read a scorer's cable, open serial ports (``/dev/ttyS*``, ``/dev/ttyUSB*``,
``/dev/ttyACM*``) as the ``dialout`` group.
"""

from __future__ import annotations

from pathlib import Path

#: Where the users' home folders are; a centre set up under one cannot hide them.
_HOME_FOLDERS = (Path("/home"), Path("/root"), Path("/run/user"))

#: The kernel's names (/proc/devices) of the serial ports a scorer's cable plugs into.
SERIAL_DEVICE_GROUPS = ("ttyS", "ttyUSB", "ttyACM")


def _under_a_home(directory: Path) -> bool:
    return any(directory == home or home in directory.parents for home in _HOME_FOLDERS)


def hardening_lines(directory: Path, data_folder: Path, *, serial_ports: bool,
                    program: Path | None = None) -> list[str]:
    """The ``[Service]`` lines that sandbox a unit of the centre set up in ``directory``,
    writing only ``data_folder``; ``serial_ports`` lets it open the scorer's serial ports.
    ``program`` (the installed ``alley-poker``) must stay readable too.

    >>> lines = hardening_lines(Path("/srv/north"), Path("/srv/north/var"), serial_ports=True)
    >>> "UMask=0077" in lines, "ReadWritePaths=/srv/north/var" in lines, "ProtectHome=yes" in lines
    (True, True, True)
    >>> "ProtectHome=read-only" in hardening_lines(
    ...     Path("/srv/north"), Path("/srv/north/var"), serial_ports=False,
    ...     program=Path("/home/pat/.local/bin/alley-poker"))
    True
    """
    places = [directory, data_folder] + ([program] if program else [])
    home = "read-only" if any(_under_a_home(place) for place in places) else "yes"
    lines = [
        "# The sandbox (docs/deployment.md, 'The units' sandbox'): every file the service",
        "# creates is its user's only (the ledger holds the deal seeds of matches in play).",
        "UMask=0077",
        "# It never gains privileges (no setuid programs, no capabilities at all).",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "AmbientCapabilities=",
        "RestrictSUIDSGID=yes",
        "# The whole file system is read-only to it except the centre's data folder.",
        "ProtectSystem=strict",
        f"ReadWritePaths={data_folder}",
        "# A /tmp and mounts of its own; the users' home folders hidden (read-only if the",
        "# centre or the program is in one).",
        "PrivateTmp=yes",
        "PrivateMounts=yes",
        f"ProtectHome={home}",
        "# The kernel's settings, modules, log, clock, host name and cgroups are not its to touch.",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "# Other users' processes are invisible in /proc, and so is all but the processes.",
        "ProtectProc=invisible",
        "ProcSubset=pid",
        "# IPv4/IPv6 (kiosks, tablets, device servers, PostgreSQL, Redis) and Unix sockets only.",
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        "# No namespaces, realtime scheduling, SysV IPC left behind, or personality changes.",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RemoveIPC=yes",
        "LockPersonality=yes",
        "# No memory both writable and executable (nothing of Python's, the odds' C engine or",
        "# SQLite's needs it): injected code cannot be run.",
        "MemoryDenyWriteExecute=yes",
        "# The system calls a service uses; anything else fails with EPERM.",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "SystemCallFilter=~@privileged",
        "SystemCallErrorNumber=EPERM",
        "# Its keys (kernel keyring) are its own.",
        "KeyringMode=private",
    ]
    if serial_ports:
        lines += [
            "# Devices: none but the basics and the serial ports a scorer's cable plugs into,",
            "# opened as the dialout group (PrivateDevices= would hide them).",
            "DevicePolicy=closed",
            *(f"DeviceAllow=char-{group} rw" for group in SERIAL_DEVICE_GROUPS),
            "SupplementaryGroups=dialout",
        ]
    else:
        lines += [
            "# No devices but /dev/null, /dev/urandom and the like, and no other users.",
            "PrivateDevices=yes",
            "PrivateUsers=yes",
        ]
    return lines
