"""Tamper evidence: every write signed, sealed and provable."""
