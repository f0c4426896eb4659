"""Redis reply decoding: unset, empty and garbled fields read as the caller's default."""

from __future__ import annotations

from houkai.db.decode import as_float, as_int, as_text


def test_as_text_decodes_bytes_and_defaults_unset():
    assert as_text(b"caf\xc3\xa9") == "café"
    assert as_text("x") == "x"
    assert as_text(None) == "" and as_text(None, "[]") == "[]"


def test_numbers_fall_back_to_the_default():
    assert as_float(b"0.25") == 0.25 and as_float(None, 0.5) == 0.5
    assert as_float(b"", 0.5) == 0.5 and as_float(b"nope", 1.0) == 1.0
    assert as_int(b"3.0") == 3 and as_int("7") == 7
    assert as_int(None) == 0 and as_int(b"x", 4) == 4 and as_int(b"inf", 2) == 2
