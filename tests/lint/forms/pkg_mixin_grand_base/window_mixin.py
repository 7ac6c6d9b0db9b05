class WindowWriterMixin:
    def _writer(self):
        if self.windowed:  # expect: KVP003
            return "split"
        return "flat"
