"""The units format."""
