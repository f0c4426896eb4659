"""Engines that compute over memories: embeddings (ONNX Runtime, torch), decay,
reflection, summarizers and importance scoring."""
