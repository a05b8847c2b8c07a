"""The FIDE Rating System as in Handbook B.02 10.0 ("fide-2003")."""
