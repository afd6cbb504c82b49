"""Verification: properties proved with z3 from the same tree the referee runs."""
