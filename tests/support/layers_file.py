"""A layers.txt (hw/femu/layers.txt, hw/femu/ftl/layers.txt) and the include lines the layer
tests read, and the rule they hold, in one place for the device's and the FTL's tests."""
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


def upward_edges(edges, layers, folder_of, sealed=()):
    """The edges (file or module pairs) that do not point to their own folder or to a lower
    layer, as lines; a sealed folder (the FTL's public API) may use no other folder."""
    bad = []
    for source, target in edges:
        src, dst = folder_of(source), folder_of(target)
        if src == dst:
            continue
        if src not in layers or dst not in layers:
            bad.append(f"{source} -> {target}: folder missing from layers.txt")
        elif src in sealed or layers[dst] >= layers[src]:
            bad.append(f"{source} -> {target}: {src} (layer {layers[src]}) may not use "
                       f"{dst} (layer {layers[dst]})")
    return bad
