"""femu_build: obtains QEMU 10.0's source, lays hw/femu in, configures and builds
qemu-system-x86_64. Run through build-femu/femu-compile.sh."""
