"""The kubernetes format."""
