"""The write verbs of `RatingsLedger`, one module per concern, mixed into it."""
