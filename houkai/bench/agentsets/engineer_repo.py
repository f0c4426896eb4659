# ruff: noqa: E501  (hand-written data tables)
"""The ``engineer`` set's memories about the repositories, tooling, environment and the
user's working preferences, written by hand.

One line per memory: ``key | days_ago | tags | text``. A key ``e.b.2>e.b.1`` supersedes
``e.b.1``; the topic is the key without its trailing number; ``-`` is a memory no question
asks about; an empty tags field means the memory has none. See :mod:`.engineer`.
"""

from __future__ import annotations

REPO = """
repo.layout | 192 | | Core monorepo is `quayside/core`, cloned at `~/src/core`. Services in `services/`, frontends in `apps/`, shared Python and Go libs in `libs/`.
repo.others | 192 | repos | Other repos User touches: `quayside/infra` (Terraform), `quayside/ledgerkit` (Python library) and `quayside/driver-app` (React Native).
pkg.manager.1 | 188 | python | Python deps in the monorepo are managed with poetry, one pyproject per service.
ci.system.1 | 190 | ci | CI is Jenkins (`jenkins.int.quayside.io`); the pipeline is the root `Jenkinsfile`.
ci.integration.1 | 184 | ci | CI runs the integration suite only on main; PR builds run unit tests and lint.
devenv.1 | 184 | | `make dev` brings up every backend in docker compose; it takes ~4 min and eats a lot of RAM.
local.pg | 183 | local | Local Postgres runs in docker on port 5433, because 5432 is the Homebrew Postgres User keeps for side projects.
local.redis | 182 | | Local Redis is in docker on 6380; 6379 is taken by a Homebrew Redis as well.
qs.env | 181 | | Set `QS_ENV=local` before starting any service on the laptop; without it the settings load prod defaults and refuse to boot.
pnpm.1 | 176 | frontend | The JS side of core uses pnpm 8 (`corepack enable` once).
pypi.index | 113 | | Internal package index: `https://pypi.int.quayside.io/simple`. Set `UV_EXTRA_INDEX_URL` to it (plain pip wants `PIP_EXTRA_INDEX_URL`); the Artifactory token is in 1Password.
ledgerkit.what | 172 | ledgerkit | ledgerkit (separate repo `quayside/ledgerkit`) is the double-entry bookkeeping library that billing-api and invoicing-worker build on. Published to the internal index.
ledgerkit.version.1 | 171 | | billing-api pins ledgerkit 2.3.1.
ledgerkit.test | 170 | ledgerkit | ledgerkit tests: `tox -e py310,py311`; it still supports 3.9 because of invoicing-worker.
codeowners.1 | 168 | review | CODEOWNERS for `services/billing-api/` is `@quayside/payments`.
terraform.version.1 | 167 | infra | quayside/infra uses Terraform 1.5.7, pinned in `.terraform-version` (tfenv).
ledgerkit.release | 146 | ledgerkit | To release ledgerkit: bump the version in pyproject, push a `vX.Y.Z` tag, and the `publish` workflow uploads it to the internal index. Never publish from a laptop.
pkg.manager.2>pkg.manager.1 | 114 | python | The monorepo moved from poetry to uv (one workspace in the root pyproject). Reason: poetry lock took 6+ minutes in CI, uv does it in under 20s.
ci.system.2>ci.system.1 | 129 | ci | CI moved to GitHub Actions: one workflow per service in `.github/workflows/`. Jenkins stays read-only until October.
ledgerkit.version.2 | 108 | ledgerkit | billing-api pins ledgerkit==2.4.0 (needed for the multi-currency rounding fix).
devenv.2>devenv.1 | 101 | | Local dev runs through Tilt: `tilt up billing-api` starts billing and its deps only. `make dev` was removed.
ci.integration.2 | 87 | | PRs labelled `run-integration` get the integration suite as well; without the label only unit + lint run.
pnpm.2 | 85 | | pnpm 9 in core; `packageManager` in the root package.json pins 9.4.0.
terraform.version.2 | 71 | | quayside/infra: Terraform 1.7.4 in `.terraform-version`.
codeowners.2 | 63 | review | CODEOWNERS for services/billing-api is `@quayside/money-movement` after the reorg.
ledgerkit.version.3 | 19 | | billing-api is on ledgerkit 3.0.0. 3.x renamed `Journal.post()` to `Journal.commit()`.
ci.integration.3 | 19 | ci | The merge queue runs the integration suite on every PR before it merges; the `run-integration` label does nothing any more.
ledgerkit.py | 22 | ledgerkit | ledgerkit 3.0 dropped Python 3.9; minimum is 3.10.
"""

ENV = """
vpn.1 | 191 | | Internal hosts (`*.int.quayside.io`) need the WireGuard VPN: `sudo wg-quick up qs`.
aws.profile.1 | 185 | aws | AWS CLI profile for the dev account: `qs-dev` (static keys in ~/.aws/credentials).
laptop.1 | 190 | | User's laptop: MacBook Pro M1 Pro, 16 GB. Docker Desktop gets 8 GB of it.
flags.system.1 | 180 | | Feature flags live in LaunchDarkly; the server SDK key is `LD_SDK_KEY`.
bastion | 152 | | Prod DB access only through `bastion-eu1.int.quayside.io` with `qs-ssh` (short-lived certs). Never connect to prod Postgres any other way.
pref.noapply | 166 | prefs, infra | Never run `terraform apply`. Only `terraform plan` and paste the output; applies go through Atlantis on the PR.
logs.1 | 147 | | Logs are in Kibana (`kibana.int.quayside.io`), index pattern `billing-*`.
laptop.2 | 119 | | User's laptop: MacBook Pro M3 Max, 36 GB. OrbStack instead of Docker Desktop.
logs.2 | 86 | observability | Logs are in Grafana Loki: `{app="billing-api"}` in Explore on `grafana.int.quayside.io`.
flags.system.2>flags.system.1 | 84 | | Feature flags moved from LaunchDarkly to self-hosted flagd. Flags are YAML under `flags/` in quayside/infra; a change takes ~30s to reach the pods.
aws.profile.2 | 83 | aws | AWS goes through SSO: `aws sso login --profile qs-sandbox` each morning; the qs-dev static keys were revoked.
aws.profile.3 | 82.7 | | Correction: the SSO profile for dev is `qs-dev-sso`. `qs-sandbox` is the sandbox account, which has no billing resources.
vpn.2 | 58 | | Internal hosts need Tailscale (tailnet `quayside.ts.net`); the WireGuard config was retired.
mobile.repo | 162 | mobile | driver-app (`quayside/driver-app`, React Native + Expo) is separate from core. User only touches it for the payment sheet.
mobile.expo.1 | 161 | | driver-app is on Expo SDK 50.
mobile.test | 161 | | driver-app tests: `yarn test` (jest-expo). That repo uses yarn, not pnpm.
mobile.expo.2 | 62 | mobile | driver-app is on Expo SDK 51; run `npx expo-doctor` after pulling.
oncall.payments.1 | 176 | oncall | Payments on-call is the PagerDuty schedule `payments-primary`; User is on it every 5th week.
oncall.platform | 150 | | Platform on-call (EKS, Argo CD) is PagerDuty schedule `platform-primary`; it escalates to Markus Cheng.
oncall.payments.2 | 46 | | Payments rotation has 6 people since Lucía joined, so User is on call every 6th week.
slack.payments.1 | 184 | | Payments team Slack channel: #team-payments.
slack.auth | 170 | | Identity team Slack channel: #auth-platform. Joon answers fastest there.
slack.incidents | 150 | | Incidents run in `#inc-<date>-<slug>` channels that the PagerDuty bot opens.
slack.payments.2 | 57 | slack | Payments team Slack channel: #payments-eng (renamed in the reorg, #team-payments is archived).
codefreeze | 26 | | Peak-season code freeze Nov 20 – Dec 2: P1 fixes only, each one signed off by Beatriz.
jira.project.1 | 180 | jira | Payments tickets are in the PAY Jira project.
jira.project.2 | 60 | | New Payments tickets go in the MM Jira project (Money Movement). Old PAY keys still resolve.
"""

PREFS = """
pref.commit.1 | 187 | prefs | User wants commit messages in Conventional Commits form (`feat(billing): ...`, `fix(auth): ...`).
pref.tz | 189 | | User is in Toronto (ET). Most of Payments is in Lisbon, five hours ahead.
pref.editor.1 | 186 | | User works in VS Code: give settings.json snippets, not vim config.
branch.naming.1 | 186 | git | Branch names: `noor/PAY-1234-short-slug`.
pref.fixtures | 179 | prefs, python | Prefers pytest fixtures over setUp/tearDown. No unittest.TestCase in new tests.
pref.prsize | 175 | preferences | Keep PRs under ~400 changed lines; split refactors from behaviour changes.
pref.merge.1 | 168 | | User prefers squash merges so main stays one commit per PR.
pref.httpx | 158 | python | Use httpx, not requests, in new Python code (async clients in billing-api).
pref.explain | 150 | | User doesn't want long explanations: show the diff and one line of why.
pref.logging | 144 | | Log with structlog (`log = structlog.get_logger()`); no f-strings in log calls, pass fields as kwargs.
pref.reviewtone | 133 | | When drafting review comments for User, phrase them as questions ("Could we…?"), never "you should".
pref.datetime | 120 | python | Timezone-aware datetimes only: `datetime.now(UTC)`. A ruff rule bans `utcnow()` in billing.
pref.editor.2 | 102 | | User switched to Neovim (LazyVim). Give keymaps and lua config instead of VS Code settings.
pref.merge.2 | 91 | prefs | For billing PRs User likes rebase-and-merge (keeps small commits for bisect); squash only when the history is messy.
branch.naming.2 | 78 | | Branch names: `PAY-1234/short-slug`. The Jira automation only links a branch when the key comes first.
pref.commit.2 | 77 | prefs | Commit subject: Jira key first, then a plain sentence, e.g. `PAY-1519 Fix refund race on retries`. No Conventional Commits prefix.
pref.shell | 140 | | User's shell is fish; export lines need `set -x VAR value`, not bash syntax.
pref.todo | 125 | pref | Don't leave TODOs without a ticket key: `# TODO(PAY-1601): ...`.
pref.draftpr | 110 | | Open PRs as drafts first; User flips them to ready after looking at CI.
"""
