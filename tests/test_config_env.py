"""Settings read from the environment: an empty value of a path setting means its default."""

from __future__ import annotations

from houkai.domain.config import _default_data_dir, load_settings


def test_an_empty_data_dir_means_the_default_not_the_working_directory() -> None:
    assert load_settings(env={"HOUKAI_DATA_DIR": ""}).data_dir == _default_data_dir()
    assert load_settings(env={"HOUKAI_DATA_DIR": "  "}).data_dir == _default_data_dir()
    assert load_settings(env={"HOUKAI_DATA_DIR": "/srv/houkai"}).data_dir == "/srv/houkai"
