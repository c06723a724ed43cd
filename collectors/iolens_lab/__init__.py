"""The kernel lab: the same capture on several kernels, each booted in a VM (virtme-ng + qemu)
with the host's userland, one bundle per kernel (docs/lab.md)."""
