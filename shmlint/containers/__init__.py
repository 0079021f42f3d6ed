"""One judge per container model, shared by every format that writes one.

- ``pod``: a Kubernetes pod spec (YAML manifests, Terraform's Kubernetes provider, AWS Batch on EKS);
- ``docker``: docker/podman run options as a settings object (Terraform's ``docker_container``, the Python
  docker SDK);
- ``ecs``: an AWS ECS/Batch container definition (JSON, CloudFormation, Terraform).

Each judge reads a small adapter over the format's own positioned syntax (YAML nodes, HCL blocks, Python ``ast``
calls, JSON values) and returns what the container is: its GPU and torch evidence, its /dev/shm sources, its
memory limit and what it launches. Extractors only adapt syntax, name the workload and say where a fix goes.
"""
