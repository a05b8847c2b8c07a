"""The FIDE Rating Regulations (Handbook B.02) by date: fide-2003 (10.0), fide-2022, fide-2024."""
