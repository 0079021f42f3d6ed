"""The validation suite: shmlint's /dev/shm model checked against a real torch DataLoader (docs/validation.md)."""
