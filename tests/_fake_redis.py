"""A fake Redis on loopback that is still loading its data set: ``-LOADING`` to every
command but INFO (which reports ``loading:1`` and the share loaded) and CLIENT for
*seconds*, then PONG to PING and an empty reply to the rest, one reply per command. What
``houkai redis start`` must wait for."""

from __future__ import annotations

import socket
import threading
import time


class LoadingServer:
    def __init__(self, seconds: float) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.started = time.monotonic()
        self.seconds = seconds
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        buffer = b""
        with conn:
            while data := conn.recv(4096):
                buffer += data
                commands, buffer = _commands(buffer)
                # one reply per command: redis-py 5.1+ sends CLIENT SETINFO twice with the
                # first command of a connection, in one write
                conn.sendall(b"".join(self._reply(c) for c in commands))

    def _reply(self, command: list[bytes]) -> bytes:
        name = command[0].upper() if command else b""
        elapsed = time.monotonic() - self.started
        if name == b"INFO":
            loading = elapsed < self.seconds
            perc = min(100.0, 100.0 * elapsed / self.seconds)
            body = (
                f"# Persistence\r\nloading:{int(loading)}\r\n"
                f"loading_loaded_perc:{perc:.2f}\r\nloading_eta_seconds:3\r\n"
            ).encode()
            return b"$%d\r\n%s\r\n" % (len(body), body)
        if name == b"CLIENT":
            return b"+OK\r\n"  # as Redis: CLIENT answers while it loads
        if elapsed < self.seconds:
            return b"-LOADING Redis is loading the dataset in memory\r\n"
        if name == b"PING":
            return b"+PONG\r\n"
        return b"*0\r\n"

    def close(self) -> None:
        self.sock.close()


def _commands(buffer: bytes) -> tuple[list[list[bytes]], bytes]:
    """The complete RESP commands at the start of *buffer* (arrays of bulk strings, or
    an inline command), and what is left of it."""
    out: list[list[bytes]] = []
    while buffer:
        if not buffer.startswith(b"*"):  # an inline command: one line
            line, sep, rest = buffer.partition(b"\r\n")
            if not sep:
                break
            out.append(line.split())
            buffer = rest
            continue
        head, sep, rest = buffer.partition(b"\r\n")
        if not sep:
            break
        parts: list[bytes] = []
        for _ in range(int(head[1:])):
            size_line, sep, rest = rest.partition(b"\r\n")
            if not sep or len(rest) < int(size_line[1:]) + 2:
                return out, buffer  # incomplete: wait for more
            size = int(size_line[1:])
            parts.append(rest[:size])
            rest = rest[size + 2 :]
        out.append(parts)
        buffer = rest
    return out, buffer
