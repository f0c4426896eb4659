"""Flower settings for watching houkai's Celery workers (docker-compose ``flower`` service).

Run: ``celery -A houkai.workers.app flower --conf=ops/flowerconfig.py``.
Login: ``HOUKAI_FLOWER_BASIC_AUTH=user:pass`` (comma-separate several); unset or empty
means no login (compose publishes Flower on 127.0.0.1 only). Flower's ``/healthcheck``
answers ``OK`` without auth; ``/metrics`` is Celery's queue/task metrics for Prometheus.
"""

import os

address = "0.0.0.0"
port = int(os.environ.get("FLOWER_PORT", "5555"))
# Serve under a path when behind a reverse proxy (e.g. "flower" for /flower/).
if os.environ.get("HOUKAI_FLOWER_URL_PREFIX"):
    url_prefix = os.environ["HOUKAI_FLOWER_URL_PREFIX"]
# Only set when given: an empty FLOWER_BASIC_AUTH would read as one empty credential.
_credentials = [c.strip() for c in os.environ.get("HOUKAI_FLOWER_BASIC_AUTH", "").split(",")]
if any(_credentials):
    basic_auth = [c for c in _credentials if c]

# houkai's workers do not send task events by default (they would only fill Redis);
# Flower asks them to while it runs, and keeps a bounded history in memory.
enable_events = True
max_tasks = 10000
max_workers = 200
# Scaled-down or crashed workers disappear from the dashboard after 10 minutes.
purge_offline_workers = 600
# Nothing is persisted: the state is rebuilt from events after a restart.
persistent = False
