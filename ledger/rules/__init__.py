"""Rating rules: pure functions and data, one subpackage per rule family."""
