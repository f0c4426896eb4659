"""A fake Redis on loopback that is still loading its data set: ``-LOADING`` to every
command but INFO (which reports ``loading:1`` and the share loaded) for *seconds*, then
PONG to PING and an empty reply to the rest. What ``houkai redis start`` must wait for."""

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
        with conn:
            while data := conn.recv(4096):
                elapsed = time.monotonic() - self.started
                if b"INFO" in data.upper():
                    loading = elapsed < self.seconds
                    perc = min(100.0, 100.0 * elapsed / self.seconds)
                    body = (
                        f"# Persistence\r\nloading:{int(loading)}\r\n"
                        f"loading_loaded_perc:{perc:.2f}\r\nloading_eta_seconds:3\r\n"
                    ).encode()
                    conn.sendall(b"$%d\r\n%s\r\n" % (len(body), body))
                elif elapsed < self.seconds:
                    conn.sendall(b"-LOADING Redis is loading the dataset in memory\r\n")
                elif b"PING" in data.upper():
                    conn.sendall(b"+PONG\r\n")
                else:
                    conn.sendall(b"*0\r\n")

    def close(self) -> None:
        self.sock.close()
