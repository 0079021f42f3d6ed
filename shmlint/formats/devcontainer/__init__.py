"""The devcontainer format."""
