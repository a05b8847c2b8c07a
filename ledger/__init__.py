"""ratings-ledger: an event-sourced ledger for chess rating federations."""
