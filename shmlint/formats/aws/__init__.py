"""The aws format."""
