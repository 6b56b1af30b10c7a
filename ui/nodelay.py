"""Send each of the server's messages at once: TCP_NODELAY on the server's sockets.

Streamlit 1.67's server makes its listening socket with ``socket.socket(family=...)``, so the sockets
it accepts report protocol 0, and asyncio turns Nagle's algorithm off only for sockets that report
``IPPROTO_TCP``. With Nagle on, a run's messages after the first wait until the browser acknowledges
that first one, and browsers delay acknowledgements (40 ms on Linux, up to 200 ms on Windows). Every
rerun paid it: on an idle server a slider move of a one-slider app took 44 ms from send to
``script_finished``, 41 ms of it between the run's first message and its second.
``benchmarks/bench_nodelay.py`` measures it.

:func:`send_without_delay` sets ``TCP_NODELAY`` on every TCP socket this process has open; sockets
accepted later inherit it from the listening one (Linux and macOS copy it to accepted sockets).
It finds the sockets through the process's open file descriptors, where the system lists them
(``/proc/self/fd``, ``/dev/fd``); elsewhere it does nothing.
"""

from __future__ import annotations

import os
import socket

_done = False
_FD_FOLDERS = ("/proc/self/fd", "/dev/fd")


def _open_fds() -> list[int]:
    for folder in _FD_FOLDERS:
        try:
            return [int(name) for name in os.listdir(folder)]
        except OSError:
            continue
    return []


def no_delay(fd: int) -> bool:
    """``TCP_NODELAY`` on ``fd`` if it is a TCP socket (listening or connected); True if it was set."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError:  # not a socket, or closed meanwhile
        return False
    try:
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
            return False
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return True
    except OSError:
        return False
    finally:
        sock.detach()  # the descriptor stays open: it belongs to the server


def send_without_delay() -> int:
    """Once per process: ``TCP_NODELAY`` on every TCP socket open now; how many were set."""
    global _done
    if _done:
        return 0
    _done = True
    return sum(no_delay(fd) for fd in _open_fds())
