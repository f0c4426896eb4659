"""The ``aspect`` stage: what the question asks about its subject, not the subject.

Among the best candidates of a question about one person or project, every memory
shares the subject's words, and they decide the cosine ("What style checker do I run on
the notification service?" is nearest whatever note names the notification service).
Centred on the mean vector ``μ`` of the :attr:`~.params.StageParams.aspect_top` best
candidates, what they share drops out of both the question and the memories and what
differs remains: the aspect asked for ("style checker" against "linter", "storage
engine" against "database"). ``+ aspect · shared · (q − μ)·(m − μ)``, where *shared*
is the best candidates' mean pairwise cosine: near zero when they share no subject
(centring then only adds noise), about one half among one project's notes; or the
question's mean cosine to them when that is less: a bare identifier shares no subject
with anyone (ADR 0115). The product
is not normalised: near-identical memories keep small residuals, so their order stays
with the other stages (ADR 0086). It reads the vectors the candidate search returned:
no I/O.
"""

from __future__ import annotations

import numpy as np

from ..candidates import Candidate, stacked
from .base import Signals, Stage, StageContext

#: Fewer candidates with a vector than this have no common subject to take out.
FEWEST = 3


def _units(vectors: np.ndarray) -> np.ndarray:
    """*vectors*' rows at length one (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1)
    return vectors / np.where(norms > 0, norms, 1.0)[:, None]


def mean_pairwise_cosine(vectors: np.ndarray) -> float:
    """The mean cosine between two different rows of *vectors* (any norms; a zero row
    counts as unlike every other)."""
    units = _units(vectors)
    gram = units @ units.T
    n = len(vectors)
    return float((gram.sum() - np.trace(gram)) / (n * (n - 1)))


def asked_share(vectors: np.ndarray, qvec: np.ndarray) -> float:
    """The mean cosine of the question *qvec* to the rows of *vectors* (any norms)."""
    q_norm = float(np.linalg.norm(qvec))
    return float(np.mean(_units(vectors) @ qvec)) / q_norm if q_norm > 0 else 0.0


def centred_products(cands: list[Candidate], qvec: np.ndarray, top: int) -> list[float]:
    """Each candidate's ``(q − μ)·(m − μ)``, ``μ`` the mean vector of the *top* best
    candidates by cosine, times how much those share (their mean pairwise cosine) or the
    question shares with them (its mean cosine to them), the lesser; 0 for a candidate
    without a vector."""
    pairs = [(i, c.vector) for i, c in enumerate(cands) if c.vector is not None]
    held = [i for i, _ in pairs]
    out = [0.0] * len(cands)
    if len(held) < FEWEST:
        return out
    vectors = stacked([v for _, v in pairs])
    best = np.argsort([-cands[i].cosine for i in held], kind="stable")[:top]
    n = len(best)
    if n < FEWEST:
        return out
    leaders = vectors[best]
    centre = leaders.mean(axis=0)
    q = np.asarray(qvec, dtype=np.float32)
    # what the leaders share, or the question's share of it when less: a bare identifier
    # ("10.3.7.112") is near no memory, and centred on a subject it does not share, the
    # product would lift whatever is least like the others over the one memory holding it
    # (ADR 0115)
    shared = min(mean_pairwise_cosine(leaders), asked_share(leaders, q))
    if not shared > 0:  # unrelated (or NaN): centring would only add noise
        return out
    residual = q - centre
    with np.errstate(invalid="ignore", over="ignore"):  # a broken vector counts as none
        products = (vectors - centre) @ residual
    products = np.where(np.isfinite(products), products, 0.0)
    for i, value in zip(held, products.tolist(), strict=True):
        out[i] = float(value) * shared
    return out


class AspectStage(Stage):
    name = "aspect"

    def signals(self, ctx: StageContext, cands: list[Candidate]) -> Signals:
        p, qvec = ctx.params, ctx.query.vector
        if p.aspect <= 0 or qvec is None:
            return {}
        return {"aspect": (p.aspect, centred_products(cands, qvec, p.aspect_top))}


STAGE = AspectStage()
