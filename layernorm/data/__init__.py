"""Readers of shipped and installed data: typed, table, CSV and .npy input, presets, the recorded
activations and the model's weights."""
