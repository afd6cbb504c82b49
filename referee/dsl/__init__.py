"""The rules language: its parser, checker, overlays and interpreter."""
