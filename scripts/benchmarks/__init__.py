"""Helpers of scripts/bench.py: measuring, memory, the live page, start-up."""
