"""Reporters: each turns a Report into text for one audience and knows nothing else."""
