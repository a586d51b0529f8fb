"""The boardctl chess engine: numba bitboard kernels behind a UCI front end.

Importing this package is cheap; the kernels load (or compile) on first use.
"""
