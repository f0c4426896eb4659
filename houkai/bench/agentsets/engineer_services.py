# ruff: noqa: E501  (hand-written data tables)
"""The ``engineer`` set's memories about the services of the core monorepo, by hand.

One line per memory: ``key | days_ago | tags | text``. A key ``e.b.2>e.b.1`` supersedes
``e.b.1``; the topic is the key without its trailing number; ``-`` is a memory no question
asks about; an empty tags field means the memory has none. See :mod:`.engineer`.
"""

from __future__ import annotations

SERVICES = """
billing.what | 191 | billing | billing-api is the FastAPI service in `services/billing-api`: invoices, payment intents, refunds and the PSP integration. Payments team's main service.
billing.port.1 | 181 | billing | billing-api listens on port 8041 locally (`uvicorn billing.main:app --reload --port 8041`).
auth.port.1 | 178 | auth | auth-service listens on port 8080 locally.
shipments.port | 176 | | shipments-api listens on port 8000 locally (plain Django runserver).
notifier.port | 172 | notifier | notifier listens on port 8090 locally; it only serves /healthz and /metrics, the real work is the consumers.
dashboard.port | 174 | frontend | web-dashboard dev server runs on port 3000 and proxies /api/billing and /api/shipments to the two backends through the rewrites in `apps/dashboard/next.config.js`.
rates.port | 153 | | rates-engine listens on port 8070 locally.
auth.port.2>auth.port.1 | 95 | auth | auth-service serves REST on 9090 since AUTH-311; 8080 belongs to the new gRPC gateway.
billing.port.2 | 70 | | billing-api moved to port 8042 locally because the pricing mock grabs 8041.
billing.port.3 | 69.7 | billing | Correction: billing-api's local port is 8043, not 8042. 8042 is the Adyen webhook simulator. Fixed `.env.local.example` too.
billing.test.1 | 185 | billing | Run `make test-billing` before pushing anything under services/billing-api; it starts a throwaway Postgres container first.
auth.test | 169 | auth | Run `go test ./services/auth/...` before pushing changes under services/auth; add `-run TestName` to narrow it down.
shipments.test | 167 | | Run `make test-shipments` before pushing changes under services/shipments-api. Needs `docker compose up -d postgres redis` first or every test errors on connect.
notifier.test | 160 | notifier | notifier tests: `go test -race ./services/notifier/...`. Keep -race, CI fails the job without it anyway.
dashboard.test.1 | 173 | frontend | web-dashboard tests: `pnpm --filter dashboard test` (Jest).
invoicing.test | 105 | | invoicing-worker tests: `uv run pytest services/invoicing-worker -p no:randomly` (the Celery eager-mode tests depend on order, known debt).
rates.test | 152 | rates | rates-engine tests: `./gradlew :rates-engine:test` from the repo root. Slow first run, the Gradle daemon warms up.
billing.test.2 | 112 | | Billing tests: `uv run pytest services/billing-api -m "not slow"` from the repo root. The old make target still calls poetry and is broken.
dashboard.test.2 | 64 | frontend | web-dashboard tests: `pnpm --filter @qs/dashboard test` — Vitest since the Jest removal, and the package got the @qs scope.
billing.python.1 | 182 | | billing-api is on Python 3.10.
shipments.python.1 | 175 | shipments | shipments-api is on Python 3.11 and Django 4.2.
auth.go.1 | 170 | auth | auth-service is built with Go 1.21.
notifier.go | 159 | | notifier is built with Go 1.22.
dashboard.node.1 | 176 | | web-dashboard needs Node 18 (`.nvmrc` says 18.19.0).
rates.lang | 152 | | rates-engine is Kotlin on JDK 17, the only JVM thing in core.
billing.python.2 | 121 | billing | billing-api runs on Python 3.11 (bumped in PAY-1377; the Dockerfile base is `python:3.11-slim`).
auth.go.2>auth.go.1 | 88 | | auth-service builds with Go 1.22 after Joon's toolchain bump; `go.mod` has `toolchain go1.22.5`.
dashboard.node.2 | 59 | frontend | web-dashboard: `.nvmrc` is 20.11.1. Run `nvm use` in apps/dashboard before `pnpm install` or the engines check fails.
shipments.python.2 | 41 | | shipments-api runs Python 3.12 with Django 5.0.
billing.python.3 | 28 | | billing-api runs on Python 3.12. DeprecationWarnings are errors in its pytest config, so `datetime.utcnow()` anywhere breaks the suite.
billing.db.1 | 179 | billing | billing-api's database is Postgres `billing` on `pg-billing-01.int.quayside.io`.
shipments.db | 168 | | shipments-api's database is Postgres `shipments` on `pg-shared-02.int.quayside.io`.
auth.db | 166 | auth | auth-service's database is Postgres `auth` on `pg-shared-02.int.quayside.io`.
notifier.db | 158 | | notifier has no database of its own; delivery state goes in the DynamoDB table `notifier-deliveries`.
billing.pgversion.1 | 178 | | pg-billing-01 runs Postgres 13.
billing.pgversion.2 | 49 | | Billing's Aurora cluster is Postgres 15.4 compatible, so `MERGE` works there now if we want it.
billing.db.2>billing.db.1 | 49 | billing | billing-api's database is now the Aurora Postgres cluster `billing-aurora-prod`; the writer endpoint is in SSM at `/billing/db/writer`. pg-billing-01 stays read-only until it's decommissioned.
auth.redis | 148 | | auth-service keeps sessions in Redis (`redis-auth.int.quayside.io:6379`); refresh tokens live 30 days.
billing.redis | 150 | billing | billing-api keeps idempotency keys in Redis (`redis-billing.int.quayside.io:6379`) with a 24h TTL.
billing.deploy.1 | 180 | | billing-api deploys to ECS (cluster `prod-eu1`, service `billing-api`) through the Jenkins job `billing-deploy`.
shipments.deploy.1 | 177 | shipments | shipments-api deploys to ECS (cluster `prod-eu1`) through Jenkins.
auth.deploy | 165 | | auth-service deploys to EKS, namespace `identity`, Argo CD app `auth-prod`. Joon has to approve the sync in Argo.
notifier.deploy | 157 | notifier | notifier deploys to EKS, namespace `notifier`, Argo CD app `notifier-prod`.
dashboard.deploy | 171 | frontend | web-dashboard deploys to Vercel (project `qs-dashboard`); every PR gets a preview URL comment.
billing.deploy.2 | 74 | deploy | billing-api deploys to EKS: namespace `billing` on `eks-prod-eu1`, synced by Argo CD from `deploy/billing/` (PLAT-880 done).
shipments.deploy.2>shipments.deploy.1 | 39 | | shipments-api deploys to EKS now, namespace `shipments`, same Argo CD setup as billing.
billing.owner.1 | 189 | people | billing-api owner: Marcus Chen (Payments tech lead).
auth.owner | 187 | auth | auth-service owner: Joon Park. He reviews every PR touching `services/auth`.
shipments.owner | 183 | | shipments-api owner: Adil Rahman (Fulfilment).
dashboard.owner | 182 | frontend | web-dashboard owner: Jon Parks. He reviews frontend PRs and watches bundle size closely.
notifier.owner.1 | 161 | notifier | notifier owner: Bea Okoro.
rates.owner | 152 | | rates-engine owner: Kenji Mori (Pricing).
invoicing.owner | 149 | billing | invoicing-worker belongs to Payments too; nobody is named owner, Marcus answers questions about it.
billing.owner.2 | 44 | | User owns billing-api since Marcus went to the ledger rewrite. Marcus still reviews the tricky PRs for a while.
notifier.owner.2>notifier.owner.1 | 34 | | notifier owner: Kenji Mori. Bea moved to the data platform team.
billing.lint.1 | 178 | | billing-api lint: `ruff check`, `black --check` and `mypy --strict` (config in `services/billing-api/pyproject.toml`).
shipments.lint | 164 | | shipments-api lint: flake8 + isort, no mypy (Adil says the Django stubs cost more than they catch).
auth.lint | 163 | auth | auth-service lint: `golangci-lint run ./services/auth/...` with the root `.golangci.yml`.
dashboard.lint | 162 | frontend | web-dashboard lint: `pnpm --filter dashboard lint` (eslint + prettier).
billing.lint.2 | 99 | billing | billing-api lint is `ruff check` and `ruff format --check`, then `mypy --strict`. Black is gone.
billing.staging.1 | 177 | | billing-api staging: https://billing.staging.qs-internal.net
shipments.staging | 66 | | shipments-api staging is https://shipments.stg.quayside.io.
billing.staging.2>billing.staging.1 | 68 | billing | billing-api staging URL is https://billing.stg.quayside.io since the internal domain migration.
billing.migrate | 155 | db | Billing DB migrations: `make migrate-billing` (wraps `alembic upgrade head`). New revision: `alembic revision --autogenerate -m "..."` inside services/billing-api.
shipments.migrate | 154 | | shipments-api migrations: `docker compose exec shipments python manage.py migrate`.
billing.sentry | 140 | | Sentry project for billing-api is `billing-api-prod`; staging errors go to `billing-api-stg`.
billing.seed.1 | 174 | | Seed local billing data with `make seed-billing` (3 merchants, ~200 invoices).
billing.seed.2 | 108 | | Local billing seed data: `uv run python -m billing.scripts.seed --merchants 3`.
staging.refresh.1 | 163 | | Staging billing DB is refreshed from anonymised prod every Sunday night.
staging.refresh.2 | 54 | | Staging billing DB gets an anonymised prod refresh every night at 02:00 UTC; don't leave test merchants there you want to keep.
flaky.billing.1 | 160 | billing, ci | The flaky test in billing is `test_refund_race`; it depends on wall-clock time and fails around midnight UTC.
flaky.auth | 151 | auth | The flaky test in auth-service is `TestTokenRefreshExpiry`; it depends on clock skew between the test container and Redis.
flaky.shipments | 137 | | The flaky test in shipments-api is `test_label_pdf_async`; Adil knows, ticket SHIP-702, just rerun.
flaky.billing.2 | 52 | ci | The billing test that flakes these days is `test_invoice_pdf_render` (font cache race under xdist). `test_refund_race` was fixed in #4907 with freezegun.
err.bill042 | 134 | billing | `BILL-E042` = idempotency key reused with a different payload. Client bug, not ours; we return 409.
err.auth017 | 131 | auth | `AUTH-E017` = refresh token expired or revoked. The dashboard should send the user to login, not retry.
err.ship009 | 127 | | `SHIP-E009` is a carrier API timeout in shipments-api; retried 3 times before it surfaces.
notifier.queue.1 | 156 | notifier | notifier consumes from the SQS queue `notifications-prod`.
notifier.queue.2 | 81 | | notifier consumes the Kafka topic `notifications.v1` (consumer group `notifier-prod`); the SQS queue is drained and gets deleted next sprint.
pdf.renderer.1 | 146 | billing | Invoice PDFs are rendered with wkhtmltopdf inside billing-api.
pdf.renderer.2>pdf.renderer.1 | 72 | billing | Invoice PDFs render with WeasyPrint: wkhtmltopdf is unmaintained and its binary doesn't exist for arm64 images.
ratelimit.1 | 144 | | Public billing API rate limit: 100 requests/s per merchant (token bucket in Redis).
ratelimit.2 | 36 | billing | Public billing API rate limit is 250 req/s per merchant, raised for the Black Friday peak; 429s include `Retry-After`.
psp.retry.1 | 139 | | PSP calls retry 3 times with exponential backoff (0.5s base).
psp.retry.2 | 73 | | PSP calls: up to 5 retries, backoff capped at 30s, and only on 5xx/timeouts — never on 4xx.
coverage.1 | 157 | ci | billing-api CI fails under 85% line coverage.
coverage.2>coverage.1 | 62 | ci | billing-api coverage gate is 90%; the new PSP code is excluded until the Adyen cutover finishes.
api.version.1 | 143 | | Billing public API default version is v1; v2 is opt-in via the `Quayside-Version: 2` header.
api.version.2 | 31 | | Billing public API default is v2; v1 is still served but sunset is announced for March.
auth.ttl.1 | 147 | auth | auth-service access tokens live 15 minutes.
auth.ttl.2>auth.ttl.1 | 82 | auth | auth-service access tokens live 10 minutes (security review finding); refresh stays 30 days.
rates.deploy | 151 | | rates-engine deploys to EKS, namespace `pricing`, Argo CD app `rates-prod`.
rates.db | 150 | rates | rates-engine has no Postgres; rate cards come from the S3 bucket `qs-rate-cards` and sit in a Redis cache.
dashboard.staging | 170 | frontend | web-dashboard staging is the Vercel deployment of main, https://qs-dashboard-git-main.vercel.app (SSO-protected).
invoicing.what | 151 | | invoicing-worker is the Celery worker that generates monthly invoices; queue `invoices`, Flower UI on localhost:5555.
"""

PAYMENTS = """
adyen.ticket | 104 | billing | PAY-1432 is the Adyen migration epic: card payments move off Stripe by the end of Q4. User is tech lead on it.
adyen.flag.1 | 97 | billing | Feature flag `billing.adyen_rollout` gates the Adyen path; it's at 5% of EU merchants.
adyen.flag.2>adyen.flag.1 | 79 | | `billing.adyen_rollout` raised to 25% of EU merchants.
adyen.flag.3 | 47 | billing | `billing.adyen_rollout` is at 100% for EU. US merchants start next month behind `billing.adyen_rollout_us`.
psp.envvar.1 | 176 | | billing-api reads the Stripe secret from `BILLING_STRIPE_SECRET` (in `.env.local`, never committed).
psp.envvar.2>psp.envvar.1 | 93 | billing | The PSP key env var is `BILLING_PSP_API_KEY` (renamed for Adyen); the app ignores `BILLING_STRIPE_SECRET` now.
adyen.webhook | 90 | | Adyen webhooks land on `POST /v1/psp/webhooks/adyen`; the HMAC key comes from `BILLING_ADYEN_HMAC_KEY`. Locally the simulator sends them from port 8042.
pay1519 | 158 | billing | PAY-1519: a refund retried by the PSP can credit twice. Fix = row lock on the refund + idempotency check. Assigned to User.
pr4907 | 106 | | PR #4907 (PAY-1519): `SELECT ... FOR UPDATE` on refunds, plus freezegun in `test_refund_race`. Merged after Marcus's review.
pr5012 | 20 | billing | PR #5012: ledgerkit 3.0 upgrade in billing-api, `Journal.post` → `Journal.commit` in 14 files. Marcus approved, merged before the freeze.
p99.1 | 150 | perf | billing-api p99 on `POST /v1/invoices` is about 420 ms.
p99.2 | 96 | | billing-api p99 for invoice creation ~310 ms after the N+1 fix in #4766.
p99.3 | 38 | perf | billing-api p99 on `POST /v1/invoices`: 240 ms (Grafana panel "Invoice create latency").
okr.latency | 140 | | Q3 goal for Payments: invoice creation p99 under 300 ms.
plat880 | 76 | infra | PLAT-880: move billing-api from ECS to EKS. Markus Cheng's ticket; User pairs with him on the Helm chart.
auth311 | 96 | auth | AUTH-311: a gRPC gateway in front of auth-service, Joon's project. It took over port 8080.
inc2291 | 75 | incident | INC-2291: duplicate invoice emails. notifier retried a send after a timeout without an idempotency key. Postmortem owner: Bea.
"""
