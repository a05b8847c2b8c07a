"""The write verbs of `RatingsLedger`, one collaborator a concern, each given the application
as its `Writer` (writer.py) and deciding from its `Records` (records.py)."""
