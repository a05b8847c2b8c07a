"""ratings-ledger: an event-sourced ledger for chess rating federations."""

from ledger import compiled

compiled.install()  # the replay's hot modules compiled, when built from today's source
