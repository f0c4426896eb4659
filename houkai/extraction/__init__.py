"""Conversations in, memories out: turning a session's messages into memories.

The pieces, each in its own module:

- :mod:`.base`: the value types (a chat message, a candidate memory, a reconciliation
  decision, token usage) and the :class:`~.base.Extractor` protocol every extractor keeps;
- :mod:`.registry`: ``extractor_for("rules" | "llm:<provider>:<model>")``, the one place an
  extractor spec is parsed;
- the no-LLM default (``rules``) and the LLM providers (``llm:openai:…``, ``llm:anthropic:…``,
  ``llm:ollama:…``) behind the same protocol.

Extraction runs on the workers: the request that adds messages only stores them.
"""
