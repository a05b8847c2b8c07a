"""Projections: the read model rebuilt by replaying the ledger through the rating rules."""
