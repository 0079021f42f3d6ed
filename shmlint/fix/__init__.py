"""Fixes: format-free ``Fix`` values from the checks become text edits here, applied and written safely."""
