from .flag_base import FlagBaseBackend
from .window_mixin import WindowWriterMixin


class MidBackend(FlagBaseBackend):
    def forward_extend(self, q, k, v, layer, forward_batch):
        return q


class WriterBackend(WindowWriterMixin, MidBackend):
    def forward_decode(self, q, k, v, layer, forward_batch):
        return self._writer()
