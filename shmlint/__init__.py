"""shmlint: find GPU and PyTorch containers whose /dev/shm will be too small, before they crash."""

__version__ = "0.1.0"
