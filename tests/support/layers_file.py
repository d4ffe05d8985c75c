"""A layers.txt (hw/femu/layers.txt, hw/femu/ftl/layers.txt) and the include lines the layer
tests read, in one place for the device's and the FTL's tests."""
import re

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(text):
    """{folder: layer number, 0 at the bottom} from layers.txt's lines."""
    layers = {}
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    for number, line in enumerate(lines):
        folders, separator, _ = line.partition(" -- ")
        assert separator, f"layers.txt: {line!r} has no ' -- ' before its description"
        for folder in folders.split():
            assert folder not in layers, f"layers.txt names {folder} twice"
            layers[folder] = number
    return layers
