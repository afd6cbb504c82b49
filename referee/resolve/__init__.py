"""Resolve: a spec's syntax trees resolved and type-checked into its symbols; overlays put in
force."""
