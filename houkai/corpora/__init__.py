"""Generated text in the shapes agents write (clustered logs, chat turns, rare facts).

Deterministic and offline. Shared by the int8 encoder's calibration
(:mod:`houkai.engines.onnx_freeze`), the findability benchmark and the tests, so it
lives below all three instead of inside ``houkai.bench``.
"""
