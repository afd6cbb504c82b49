"""Replaying a game record against the checked rules: state, procedures, verdicts."""
