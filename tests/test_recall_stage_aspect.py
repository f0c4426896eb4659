"""The ``aspect`` stage (ADR 0086): centred on what the best candidates share, the
question's vector points at the aspect it asks about, not at its subject."""

from __future__ import annotations

import warnings

import numpy as np

from houkai import MemoryStore
from houkai.domain.model import Memory
from houkai.recall.candidates import Candidate
from houkai.recall.stages.aspect import centred_products

LEDGER = [
    "HTTP layer of ledger-worker: Spring Boot.",
    "The ledger worker is pinned to Node 18 in the Dockerfile and .tool-versions.",
    "ledger-worker deploys to the prod k8s cluster via Argo CD.",
    "ledger-worker builds on Buildkite; the pipeline file is in the repo root.",
    "Messaging for ledger-worker: SQS.",
    "Local port for the ledger worker: 8000.",
    "Code owner for ledger-worker is Marcus.",
    "Database for ledger-worker: Postgres 16.",
    "Database for checkout-web: Postgres 14.",
    "checkout-web is hosted on ECS Fargate.",
]


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def _cand(name: str, vec: np.ndarray, q: np.ndarray) -> Candidate:
    return Candidate(
        memory=Memory(id=name, text=name), cosine=float(vec @ q), has_vector=True, vector=vec
    )


def test_centring_takes_out_the_subject_every_candidate_shares():
    subject, asked, wording, other, more = np.eye(5, dtype=np.float32)
    q = _unit(subject + 0.5 * asked + 0.5 * wording)
    right = _unit(subject + 0.5 * asked + 0.3 * more)  # says what is asked
    near = _unit(subject + 0.6 * wording + 0.2 * other)  # words it as the question does
    far = _unit(subject + 0.7 * other + 0.2 * wording)
    cands = [_cand("right", right, q), _cand("near", near, q), _cand("far", far, q)]
    # by plain cosine the note worded like the question wins
    assert cands[1].cosine > cands[0].cosine
    centred = centred_products(cands, q, top=3)
    assert centred[0] > centred[1] > centred[2]
    # memories that share no subject (orthogonal): centring would be noise, nothing moves
    apart = [_cand(str(i), v, q) for i, v in enumerate(np.eye(5, dtype=np.float32)[1:])]
    assert centred_products(apart, q, top=4) == [0.0] * 4
    # a candidate without a vector gets nothing; too few candidates, nothing moves
    cands.append(Candidate(memory=Memory(id="lex", text="lexical only")))
    assert centred_products(cands, q, top=3)[3] == 0.0
    assert centred_products(cands[:2], q, top=3) == [0.0, 0.0]


def test_a_broken_vector_gets_nothing_and_poisons_no_score():
    """A stored vector with a NaN in it (a corrupted write) below the best candidates gets
    no share, not a NaN that would sort anywhere; numpy's floating-point flags raise no
    warning from the library."""
    subject, asked, wording, other, _ = np.eye(5, dtype=np.float32)
    q = _unit(subject + 0.5 * asked + 0.5 * wording)
    good = [_unit(subject + w * asked + (1 - w) * other) for w in (0.6, 0.4, 0.2)]
    broken = np.array([np.nan, 0.1, 0.0, 0.0, 0.0], dtype=np.float32)
    cands = [*(_cand(str(i), v, q) for i, v in enumerate(good)), _cand("broken", broken, q)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        centred = centred_products(cands, q, top=3)
    assert centred[3] == 0.0 and all(np.isfinite(centred))
    assert centred[0] > centred[2]


def _rank(store: MemoryStore, question: str, wanted: str, stages: str | None) -> tuple[int, dict]:
    hits = store.recall(question, k=10, mode="hybrid", touch=False, explain=True, stages=stages)
    texts = [m.text for m, _, _ in hits]
    at = texts.index(wanted)
    return at, hits[at][2]


def test_the_note_on_the_asked_aspect_rises_among_one_subjects_notes(store: MemoryStore):
    store.remember_many(LEDGER)
    # "broker" is the aspect; every candidate names the ledger worker, and by the whole
    # question's cosine its HTTP layer comes first
    question = "Which message broker does the ledger worker use?"
    wanted = "Messaging for ledger-worker: SQS."
    without, _ = _rank(store, question, wanted, "query,context,prf,specific,current,entity")
    on, explain = _rank(store, question, wanted, "query,context,prf,specific,current,entity,aspect")
    assert on == 0 and without > 0, (on, without)
    assert explain["stages"]["aspect"] > 0
    assert _rank(store, question, wanted, None)[0] == on  # on by default
