from .composite_base import CompositeBase


class SubBackend(CompositeBase):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self._live = lambda loc: self.main_pool.translate_loc_from_full_to_swa(loc)

    def forward_decode(self, q, k, v, layer, forward_batch):
        return self._live(forward_batch.out_cache_loc), self.main_pool
