"""A minGPT-shaped package for the tests: `model.py` imports its config node relatively."""
