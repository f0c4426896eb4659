"""``houkai ingest`` on a real terminal (a pty): a summary before the confirmation."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from _childenv import child_env

HOUKAI = str(Path(sys.executable).parent / "houkai")


def _read_until(fd: int, needle: str, deadline: float) -> str:
    out = b""
    while needle.encode() not in out:
        assert time.monotonic() < deadline, out.decode(errors="replace")
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    return out.decode(errors="replace")


def test_ingest_on_a_terminal_shows_a_summary_not_every_chunk(settings, tmp_path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(
        "".join(f"Paragraph number {n} of the long notes file.\n\n" for n in range(12))
    )
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [HOUKAI, "ingest", str(notes)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=child_env(
            REDIS_URL=settings.redis_url,
            HOUKAI_KEY_PREFIX=settings.key_prefix,
            HOUKAI_COLLECTION="ingest-tty",
            HOUKAI_DATA_DIR=str(tmp_path / "data"),
            HOUKAI_PIPELINE_MODE="inline",
        ),
        close_fds=True,
    )
    os.close(follower)
    try:
        deadline = time.monotonic() + 120
        shown = _read_until(leader, "Store 12 memories?", deadline)
        os.write(leader, b"n\n")
        shown += _read_until(leader, "Aborted.", deadline)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    assert "Paragraph number 0 of the long notes file." in shown  # a few examples
    assert "… and 9 more" in shown and "Paragraph number 11" not in shown
    assert "12 chunk(s) from 1 input(s)." in shown
