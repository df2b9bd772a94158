"""The training package of the CuPy example job (examples/cupy_pkg/train.py)."""
