"""What the oracle reports. A failure has a kind (what ddmin must reproduce: the same
kind, not the same words) and a message for people."""


class Failure(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.index = -1          # the record being run when it was seen

    # Kinds the campaign counts separately in its figures.
    @property
    def category(self) -> str:
        if self.kind in ("crash", "exit-status"):
            return "crash"
        if self.kind in ("hang", "exit-hang"):
            return "hang"
        if self.kind == "sanitizer":
            return "sanitizer"
        return "oracle"
