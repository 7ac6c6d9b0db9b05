class PagingMixin:
    """Plans launches for whichever backend inherits it (no pool named here)."""

    def plan_pages(self, layer, seq_lens):
        if self.hybrid:
            return seq_lens // self.page_size
        return seq_lens
