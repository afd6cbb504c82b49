"""The command line's commands: one module a command (or a family of them), each with its
arguments, its text and its JSON; referee/cli.py dispatches."""
