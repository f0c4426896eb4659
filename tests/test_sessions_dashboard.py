"""The dashboard's Sessions view in a real headless Chromium (issue 30): the list, one
session's window with what each message became, its summary; against a live server and
worker (see tests/test_dashboard_browser.py, whose stack and helpers this reuses)."""

from __future__ import annotations

import time

from test_dashboard_browser import RW, _go, _login, _text_of, browser, live  # noqa: F401

from selenium.webdriver.common.by import By  # isort: skip


def test_sessions_view_shows_window_summary_and_what_messages_became(live, browser):  # noqa: F811
    messages = [
        {"id": "s1", "role": "user", "content": "I live in Lisbon."},
        {"id": "s2", "role": "assistant", "content": "Lisbon is lovely in spring."},
        {"id": "s3", "role": "user", "content": "We decided to use Postgres for billing."},
    ]
    added = live.api("POST", "/sessions/ui-chat/messages", {"messages": messages, "user_id": "ana"})
    assert added["added"] == 3
    live.api("POST", "/sessions/ui-chat/extract")  # queued to the live worker
    deadline = time.monotonic() + 60
    while live.api("GET", "/sessions/ui-chat")["pending"]:
        assert time.monotonic() < deadline, "the worker did not extract the session"
        time.sleep(0.2)

    _login(browser, live, RW)
    root = _go(browser, "#/sessions", "sessions")
    assert "ui-chat" in root.find_element(By.ID, "sessions").text
    _go(browser, "#/sessions/ui-chat", "sessions")
    rows = {
        r.get_attribute("data-message"): r.text
        for r in browser.find_elements(By.CSS_SELECTOR, "#session-window tbody tr")
    }
    assert set(rows) == {"s1", "s2", "s3"}
    assert "ADD" in rows["s1"] and "User lives in Lisbon." in rows["s1"]
    assert "nothing kept" in rows["s2"]
    assert "(nothing has left the window yet)" in (_text_of(browser, "session-summary") or "")
    link = browser.find_element(By.CSS_SELECTOR, "#session-window tbody tr[data-message='s3'] a")
    link.click()
    memory = _go(browser, browser.execute_script("return location.hash"), "m")
    assert "ui-chat" in memory.text and "s3" in memory.text
