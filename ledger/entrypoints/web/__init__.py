"""The read-only audit site served by `ratings-ledger serve`."""
