"""Benchmarks: `make bench` runs every module here that defines ``main()``."""
