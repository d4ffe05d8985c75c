"""The one exception type for problems a user can fix (bad folder, malformed CSV, bad option).

The CLI prints its message as a single line and exits with status 2; anything else escaping
is a bug in this package and keeps its traceback.
"""


class AnalysisError(Exception):
    """A user-facing error; str(error) is the whole message, one line."""
