"""A fake LLM provider on loopback: the OpenAI Chat Completions and Anthropic Messages
APIs, enough of them for the real ``openai`` and ``anthropic`` clients.

Replies are scripted: :meth:`FakeLLM.push` queues steps answered in order (both
endpoints share the queue); when it is empty, ``responder(request)`` (if set) makes the
step from the request. A step is a dict:

- ``{"reply": {...}}``: a structured reply (the message content as JSON for
  ``response_format``, a tool call for ``tools``, a ``tool_use`` block for Anthropic);
- ``{"content": "text"}``: raw model text (malformed JSON on demand);
- ``{"status": 429, "retry_after": "0.2"}`` / ``{"status": 500}``: an API error;
- ``{"body": "..."}``: a raw HTTP 200 body (a broken envelope);
- ``"delay": seconds`` with any of them: answer that late (beyond a client's timeout);
- ``"usage": (input, output)``: the tokens reported (default 100, 20).

It records every request (path, JSON body, arrival and departure on its own monotonic
clock) and the most requests it ever had in flight at once. Only 127.0.0.1 is bound.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = dict[str, Any]


@dataclass
class Seen:
    path: str
    body: dict[str, Any]
    arrived: float
    left: float = 0.0
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)


def _openai_body(step: Step, request: dict[str, Any]) -> dict[str, Any]:
    given, taken = step.get("usage", (100, 20))
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    if "content" in step:
        message["content"] = step["content"]
    elif request.get("tools"):
        name = request["tools"][0]["function"]["name"]
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(step["reply"])},
            }
        ]
        finish = "tool_calls"
    else:
        message["content"] = json.dumps(step["reply"])
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": given,
            "completion_tokens": taken,
            "total_tokens": given + taken,
        },
    }


def _anthropic_body(step: Step, request: dict[str, Any]) -> dict[str, Any]:
    given, taken = step.get("usage", (100, 20))
    if "content" in step:
        content = [{"type": "text", "text": step["content"]}]
        stop = "end_turn"
    else:
        name = (request.get("tools") or [{"name": "tool"}])[0]["name"]
        content = [{"type": "tool_use", "id": "toolu_1", "name": name, "input": step["reply"]}]
        stop = "tool_use"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "fake"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": given, "output_tokens": taken},
    }


def _error_body(path: str, status: int) -> dict[str, Any]:
    kind = "rate_limit_error" if status == 429 else "api_error"
    message = f"fake {status}"
    if path.endswith("/messages"):
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}


class FakeLLM:
    """The server; use as a context manager (binds a free port on 127.0.0.1)."""

    def __init__(self) -> None:
        self.steps: deque[Step] = deque()
        self.responder: Callable[[dict[str, Any]], Step] | None = None
        self.seen: list[Seen] = []
        self.inflight = 0
        self.max_inflight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ control
    def push(self, *steps: Step) -> None:
        with self._lock:
            self.steps.extend(steps)

    def _next(self, request: dict[str, Any]) -> Step:
        with self._lock:
            if self.steps:
                return self.steps.popleft()
        if self.responder is not None:
            return self.responder(request)
        return {"status": 500}

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self, path_suffix: str = "") -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path.endswith(path_suffix)]

    # ------------------------------------------------------------------ serving
    def __enter__(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                seen = Seen(self.path, body, time.monotonic(), headers=dict(self.headers))
                with fake._lock:
                    fake.seen.append(seen)
                    fake.inflight += 1
                    fake.max_inflight = max(fake.max_inflight, fake.inflight)
                try:
                    status, headers, payload = fake._answer(seen)
                finally:
                    # out of flight before the first byte leaves: the client cannot start
                    # its next request while this one still counts
                    with fake._lock:
                        fake.inflight -= 1
                        seen.left = time.monotonic()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _answer(self, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.path not in ("/v1/chat/completions", "/v1/messages"):
            step: Step = {"status": 404}
        else:
            step = self._next(seen.body)
        if step.get("delay"):
            time.sleep(float(step["delay"]))
        status = int(step.get("status", 200))
        headers = {"content-type": "application/json"}
        if status != 200:
            payload = json.dumps(_error_body(seen.path, status)).encode()
            if step.get("retry_after") is not None:
                headers["retry-after"] = str(step["retry_after"])
        elif "body" in step:
            payload = str(step["body"]).encode()
        elif seen.path.endswith("/messages"):
            payload = json.dumps(_anthropic_body(step, seen.body)).encode()
        else:
            payload = json.dumps(_openai_body(step, seen.body)).encode()
        seen.status = status
        return status, headers, payload


def max_in_window(times: list[float], window: float) -> int:
    """The most of *times* inside any window of *window* seconds."""
    ordered = sorted(times)
    best = 0
    start = 0
    for end, t in enumerate(ordered):
        while t - ordered[start] > window:
            start += 1
        best = max(best, end - start + 1)
    return best
