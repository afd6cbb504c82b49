"""Judging a view record (issue 31.3): whether some assignment of what the view did not see
makes every event legal. holes.py finds the marks, search.py searches, judge.py reports."""
