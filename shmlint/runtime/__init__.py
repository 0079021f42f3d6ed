"""What docker, podman, compose, Kubernetes and NCCL make of the settings shmlint reads.

Extractors, fixers and the validation harness ask here rather than each keeping its own copy, so the formats
cannot drift apart: the /dev/shm path (``shm``), IPC modes (``ipc``), tmpfs/mount/volume options (``mounts``),
``${VAR}`` interpolation (``interpolation``) and NCCL's reading of its environment (``nccl``). Sizes live in
``shmlint.sizes``. Nothing here knows a file format's syntax: callers hand over plain strings.
"""
