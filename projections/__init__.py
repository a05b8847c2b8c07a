"""Projections: the read model rebuilt by replaying the ledger through the rating rules."""

# The read model's layout (projections/schema.py): a read model of another version is rebuilt.
SCHEMA_VERSION = "7"
