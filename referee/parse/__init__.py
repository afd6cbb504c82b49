"""Parse: rules text to a syntax tree (every node with its file, line and column)."""
