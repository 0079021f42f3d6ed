"""The python format."""
