"""The compose format."""
