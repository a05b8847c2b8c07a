"""The US Chess rating system (Glickman & Doan), versions 2015, 2020 and 2024."""
