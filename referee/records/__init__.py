"""Records: a game record read (YAML, JSON or the table notation) into events with typed
values, and the outcomes it expects."""
