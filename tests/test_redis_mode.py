"""The session runs where ``HOUKAI_TEST_REDIS`` says: the door files' second pass
(tests/doors.txt) really is on a 3-master Redis Cluster, with Celery on a single node."""

from __future__ import annotations

import os
from pathlib import Path

from _redis_mode import CLUSTER_MODE
from redis.cluster import RedisCluster

from houkai.db.connection import connect


def test_the_session_storage_is_the_chosen_redis(settings, broker_url) -> None:
    client = connect(settings.redis_url)
    if CLUSTER_MODE:
        assert settings.redis_url.startswith("redis+cluster://")
        assert isinstance(client, RedisCluster) and len(client.get_primaries()) == 3
        assert settings.broker_url == broker_url == os.environ["HOUKAI_BROKER_URL"]
        assert not isinstance(connect(broker_url), RedisCluster)  # Celery's: one node
    else:
        assert not isinstance(client, RedisCluster) and settings.broker_url == ""


def test_every_listed_door_file_exists() -> None:
    here = Path(__file__).parent
    listed = [
        line.strip()
        for line in (here / "doors.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(listed) == len(set(listed)) >= 20
    assert all((here.parent / path).is_file() for path in listed), listed
