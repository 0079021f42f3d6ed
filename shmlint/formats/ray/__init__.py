"""The ray format."""
