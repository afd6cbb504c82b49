"""Explain: clauses, labels, names, overlays, printings and data entries told for people."""
