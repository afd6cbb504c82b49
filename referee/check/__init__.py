"""Check: a spec's syntax trees resolved and typed into its symbols; overlays put in force."""
