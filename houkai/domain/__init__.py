"""The domain: the memory model and its vocabularies, errors, config, text and time parsing.

Nothing here talks to Redis; every other layer builds on these types.
"""
