"""The crash-consistency lab (femu-lab crash): file systems on a device that loses power."""
