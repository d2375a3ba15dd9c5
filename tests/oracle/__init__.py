"""Test-time oracle: the official COCO caption evaluation (pycocoevalcap 1.2, needs Java).

Only the slow parity suites and the benchmarks use it; capeval itself never needs Java.
"""
