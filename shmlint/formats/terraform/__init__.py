"""The terraform format."""
