# ruff: noqa: E501  (hand-written data tables)
"""The ``engineer`` set's questions, written by hand with the memories that answer them.

One line per question: ``kind | keys | topic | text``, as in :mod:`.team_questions`.
*keys* are the answering memories' keys (comma-separated); *topic* is blank for the first
key's topic, or names its own (multi-hop questions). A ``current`` question's answer is
the newest of several statements on its topic; a ``past`` one asks for an older statement
on a topic whose update carries no ``supersedes`` link; a ``distractor`` one has another
service's or person's statement of the same kind in nearly the same words.
"""

from __future__ import annotations

QUESTIONS = """
current | billing.port.3 | | What port does billing-api listen on?
current | auth.port.2 | | which port is the auth service on these days?
current | billing.python.3 | | What Python version is billing-api on now?
current | shipments.python.2 | | what python does shipments-api run?
current | auth.go.2 | | Which Go version does auth-service build with currently?
current | dashboard.node.2 | | what node version do I need for the dashboard?
current | billing.test.2 | | billing tests, how do I run them again?
current | dashboard.test.2 | | What's the command for the web-dashboard tests now?
current | billing.db.2 | | Where does billing-api's database live?
current | billing.deploy.2 | | where is billing-api deployed to?
current | billing.owner.2 | | Who owns billing-api now?
current | notifier.owner.2 | | who owns notifier?
current | billing.lint.2 | | What does billing-api's lint step run?
current | billing.staging.2 | | what's the staging URL for billing-api?
current | flaky.billing.2 | | Which billing test is the flaky one at the moment?
current | notifier.queue.2 | | What does notifier read its messages from?
current | adyen.flag.3 | | How far is the adyen rollout flag turned up now?
current | psp.envvar.2 | | which env var holds the PSP key for billing?
current | ledgerkit.version.3 | | What ledgerkit version is billing-api pinned to?
current | ci.integration.3 | | do PRs get the integration suite these days?
current | vpn.2 | | How do I get onto the internal network?
current | aws.profile.3 | | Which AWS profile should I log in with?
current | terraform.version.2 | | what terraform version does the infra repo use now?
current | logs.2 | | where do I look at the billing logs?
current | standup.3 | | What time is standup?
current | p99.3 | | what's the latest p99 for invoice creation?
current | pref.commit.2 | | How do I want my commit messages written?
current | pref.merge.2 | | Which merge method do I use for billing PRs?
current | branch.naming.2 | | how should I name my branches?
current | manager.2 | | who's my manager now?
current | oneonone.2 | | When's my one-on-one with my boss?
current | slack.payments.2 | | what's the payments team slack channel?
current | review.approvals.2 | | how many approvals before I can merge a billing PR?
current | release.cadence.2 | | How often does billing-api ship to prod these days?
current | flags.system.2 | | Where are our feature flags managed?
current | mobile.expo.2 | | What Expo SDK is the driver app on?
current | pkg.manager.2 | | what do we use to manage python deps in core?
past | billing.port.1 | | Which port did billing-api originally run on?
past | billing.python.2 | | What Python version was billing-api on before 3.12?
past | shipments.python.1 | | What Django version was shipments-api on before the upgrade?
past | dashboard.node.1 | | which node version did the dashboard use before?
past | billing.test.1 | | What was the old command for running the billing tests?
past | billing.deploy.1 | | Where did billing-api deploy before the move to kubernetes?
past | billing.owner.1 | | who owned billing-api before me?
past | ci.integration.1 | | Originally, did CI run the integration tests on PRs at all?
past | ledgerkit.version.2 | | Which ledgerkit were we pinned to before 3.0?
past | aws.profile.1 | | What was the old AWS profile with the static keys called?
past | slack.payments.1 | | what was the payments channel called before it got renamed?
past | standup.1 | | What time was standup back when I started?
past | pref.commit.1 | | How did I want commit messages formatted before the Jira-key change?
past | laptop.1 | | Which laptop was I on before the M3?
past | logs.1 | | Where did we look at logs before Loki?
distractor | shipments.port | | What port does shipments-api run on locally?
distractor | notifier.port | | which port is notifier on?
distractor | rates.port | | what port does rates-engine listen on?
distractor | auth.test | | What's the command to test auth-service?
distractor | shipments.test | | how do I test shipments-api locally?
distractor | notifier.test | | What's the test command for notifier?
distractor | invoicing.test | | invoicing-worker tests, what's the command?
distractor | shipments.db | | Which database does shipments-api use?
distractor | auth.db | | where's the auth-service database?
distractor | shipments.owner | | Who owns shipments-api?
distractor | dashboard.owner | | who reviews frontend PRs?
distractor | auth.owner | | Who do I need for a review on auth-service code?
distractor | rates.owner | | who owns rates-engine?
distractor | notifier.deploy | | Where does notifier get deployed?
distractor | auth.deploy | | where is auth-service deployed?
distractor | notifier.go | | Which Go version is notifier built with?
distractor | shipments.lint | | What linters does shipments-api use?
distractor | dashboard.lint | | how do I lint the dashboard?
distractor | flaky.auth | | Which test is flaky in auth-service?
distractor | auth.redis | | What does auth-service keep in Redis?
distractor | shipments.staging | | What's the staging URL for shipments-api?
distractor | shipments.migrate | | how do I run migrations for shipments-api?
distractor | people.marcus | | What does Marcus Chen do?
distractor | slack.auth | | Which Slack channel does the identity team use?
distractor | mobile.test | | how are the driver-app tests run?
distractor | oncall.platform | | what's the pagerduty schedule for platform on-call?
paraphrase | pypi.index | | where do I point pip so it finds our own packages?
paraphrase | pref.noapply | | Am I allowed to push infrastructure changes out myself?
paraphrase | local.pg | | why is postgres on a weird port on my machine?
paraphrase | pref.fixtures | | how do I like test setup done?
paraphrase | pref.httpx | | which library should new python code use to call other services?
paraphrase | pref.prsize | | how big should my pull requests be?
paraphrase | ledgerkit.release | | How do I ship a new version of our bookkeeping library?
paraphrase | billing.sentry | | where do billing's crash reports end up?
paraphrase | billing.redis | | How long do we remember idempotency keys?
paraphrase | people.sam | | who has to look at a change that touches customers' personal data?
paraphrase | pref.explain | | how long should your answers to me be?
paraphrase | pref.reviewtone | | how should the review comments you draft for me sound?
paraphrase | pref.datetime | | what's the right way to get the current time in python here?
paraphrase | pref.logging | | How should I log things in billing code?
paraphrase | codefreeze | | When does the holiday lockdown on deploys end?
paraphrase | inc2291 | | what went wrong when customers got the same invoice email twice?
paraphrase | repo.layout | | Which folder of the big repo has the frontends in it?
paraphrase | slack.incidents | | Where do we coordinate during an outage?
paraphrase | people.markus | | Who do I ask for more room in our kubernetes namespace?
paraphrase | adyen.webhook | | Where do the Adyen callbacks come into our API?
paraphrase | mobile.repo | | What do I actually work on in the mobile app?
paraphrase | pref.shell | | What shell syntax should you use when you give me commands to set variables?
paraphrase | people.joon | | what's the latest I can ask Joon for something and still hear back the same day?
paraphrase | err.bill042 | | what happens when a client reuses an idempotency key with a different body?
keyword | err.auth017 | | What does AUTH-E017 mean?
keyword | pay1519 | | what was PAY-1519 about?
keyword | pr5012 | | What's in PR #5012?
keyword | plat880 | | What's PLAT-880?
keyword | adyen.ticket | | what is PAY-1432?
keyword | qs.env | | What does QS_ENV need to be set to?
keyword | bastion | | what's bastion-eu1 for?
keyword | notifier.db | | What is notifier-deliveries?
keyword | auth311 | | What was AUTH-311?
keyword | err.ship009 | | what does SHIP-E009 mean?
keyword | billing.db.2 | | what's stored at /billing/db/writer?
keyword | adyen.webhook | | What is BILLING_ADYEN_HMAC_KEY?
keyword | flaky.auth | | Why does TestTokenRefreshExpiry keep failing?
keyword | oncall.payments.1 | | What's payments-primary?
keyword | pr4907 | | what did #4907 change?
keyword | billing.seed.2 | | What's billing.scripts.seed for?
multi-hop | notifier.queue.2, notifier.owner.2 | mh.notifier-lag | Who should I talk to about lag on the notifications.v1 consumer?
multi-hop | billing.db.2, bastion | mh.billing-prod-db | How would I connect to billing-api's production database?
multi-hop | flaky.auth, auth.owner | mh.clock-skew-owner | Who owns the service whose flaky test breaks on clock skew?
multi-hop | billing.deploy.2, oncall.platform | mh.billing-cluster-escalation | If the cluster billing runs on has problems, who does it escalate to?
multi-hop | adyen.ticket, adyen.flag.3 | mh.adyen-epic-progress | How far along is the rollout for the epic I'm tech lead on?
multi-hop | ledgerkit.release, pypi.index | mh.ledgerkit-install | Once ledgerkit is released, where does it go and how do I make uv find it?
multi-hop | people.sam, review.approvals.2 | mh.card-data-pr | My billing PR touches card data; whose approvals do I need?
multi-hop | pr4907, pay1519 | mh.refund-bug | What was the underlying bug that PR #4907 fixed?
multi-hop | dashboard.port, billing.port.3, shipments.port | mh.dashboard-proxy | Which local ports does the dashboard's /api proxy send requests to?
multi-hop | rates.owner, notifier.owner.2 | mh.kenji-services | Which services does Kenji Mori own?
multi-hop | adyen.flag.3, flags.system.2 | mh.adyen-flag-edit | Where do I go to change the adyen rollout percentage?
multi-hop | psp.envvar.2, adyen.webhook | mh.adyen-local-env | What do I need in .env.local to run billing against Adyen locally?
multi-hop | bastion, vpn.2 | mh.bastion-network | What do I have to connect to before I can reach bastion-eu1?
"""
