"""Compile: the checked rules made ready to run: the spec assembled and cached, its
expressions and statements compiled to closures and evaluated."""
