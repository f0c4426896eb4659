"""The default mode lists of ``houkai bench locomo`` and ``houkai bench heldout``.

Kept apart from the benchmarks so the CLI can show them without importing them: each
recall stage added in turn to the plain blend, then the defaults (see ``locomo.MODES``).
"""

LOCOMO_DEFAULT = "semantic,plain,+query,+context,+prf,+specific,hybrid,hybrid+rrf"
HELDOUT_DEFAULT = "plain,+query,+context,+prf,+specific,hybrid"
