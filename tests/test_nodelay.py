"""``ui/nodelay.py``: the server sends each message at once (TCP_NODELAY), on sockets accepted later too."""

from __future__ import annotations

import os
import socket

from ui import nodelay


def _nodelay(sock: socket.socket) -> bool:
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def test_a_listening_socket_made_as_streamlit_makes_it_hands_on_no_delay_to_what_it_accepts() -> None:
    with socket.socket(family=socket.AF_INET) as listener:  # protocol 0, as Streamlit 1.67 binds it
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert not _nodelay(listener)
        assert listener.fileno() in nodelay._open_fds()
        assert nodelay.no_delay(listener.fileno())
        with socket.create_connection(listener.getsockname()) as client:
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.proto == 0  # why asyncio leaves Nagle on for it
                assert _nodelay(accepted)
                client.sendall(b"still open")
                assert accepted.recv(16) == b"still open"  # the descriptor was not closed or taken


def test_what_is_not_a_tcp_socket_is_left_alone_and_open() -> None:
    read, write = os.pipe()
    left, right = socket.socketpair()
    try:
        assert not nodelay.no_delay(read)
        assert not nodelay.no_delay(left.fileno())
        os.write(write, b"x")
        assert os.read(read, 1) == b"x"
        left.sendall(b"y")
        assert right.recv(1) == b"y"
    finally:
        os.close(read)
        os.close(write)
        left.close()
        right.close()
