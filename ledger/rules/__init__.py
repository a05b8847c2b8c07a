"""Rating rules: pure functions and data, one subpackage per rule family."""

FAMILIES = ("uschess", "fide", "icu")  # the rules families a read model rates under
