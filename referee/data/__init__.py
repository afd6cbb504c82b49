"""Reading data: YAML and JSON with source positions, validated by JSON Schema."""
