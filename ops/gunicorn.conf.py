"""gunicorn settings for the houkai REST API (``houkai serve --workers N`` uses this file).

Run directly with::

    gunicorn -c ops/gunicorn.conf.py 'houkai.api.rest:create_app()'

Everything houkai-specific (Redis URL, collection, tokens, body cap) comes from
the usual ``HOUKAI_*`` / ``REDIS_URL`` environment, read by ``create_app()``.
"""

import os

# Bind: HOUKAI_HTTP_HOST/PORT like `houkai serve`, or an explicit GUNICORN_BIND.
bind = os.environ.get("GUNICORN_BIND") or "{}:{}".format(
    os.environ.get("HOUKAI_HTTP_HOST", "127.0.0.1"), os.environ.get("HOUKAI_HTTP_PORT", "8765")
)
wsgi_app = "houkai.api.rest:create_app()"

# Threads, not processes, carry the concurrency: each worker loads the embedding
# model once (~100 MB), and recall/embedding release the GIL inside torch/numpy.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))

# No preload: torch's thread pools and open Redis sockets must not cross fork();
# every worker builds its own app, model and connection pool after forking.
preload_app = False

# A cold worker loads the model before its first request, and a large recall_pack
# or a wait=true write can take seconds: be generous but still bounded.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "120"))
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then so slow leaks cannot accumulate (jittered so
# they do not all restart at once).
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "5000"))
max_requests_jitter = 500

# Request-line / header limits: the app answers 414 / 431 itself, in JSON, past 8190
# bytes / 100 headers (houkai.api.rest.check_request_size). gunicorn's own answers are
# HTML, so its limits sit above the app's: 0 = a 1 MiB request line, 200 headers of at
# most 16 KiB. (The JSON body cap is HOUKAI_HTTP_MAX_BODY, in the app.)
limit_request_line = 0
limit_request_fields = 200
limit_request_field_size = 16384

# Access log to stdout with the request id the app puts on every response, so a
# 500's request_id can be found in the logs.
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s ua="%(a)s"'
# Behind a reverse proxy, trust its X-Forwarded-* only from these addresses.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
