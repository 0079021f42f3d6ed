"""The gitlab_runner format."""
