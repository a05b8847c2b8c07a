"""Helpers of scripts/generate.py: the synthetic ledger's world, players and sections."""
