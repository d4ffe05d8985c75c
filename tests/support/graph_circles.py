"""Circles in a module graph, for the tests that check the include / call layering of the
FTL (tests/ftl/test_include_layers.py) and of the device
(tests/device/test_device_include_layers.py). tests/support is on the import path through
pyproject.toml (pythonpath)."""


def circles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted.
    graph: {module: {modules it depends on}}."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph.get(node, ())):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found
