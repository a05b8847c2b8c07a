"""Rating rules: pure functions and data, one package per rule family (each exposing its
`Family`, listed in `ledger.rules.families`) and the helpers they share at this level."""
