"""Gates on state a sibling mixin stores: the backend inheriting both is what self is."""
from __future__ import annotations


class TableGateMixin:
    def _select_page_table(self, metadata):
        if self.window_mode:  # expect: KVP003
            return metadata.swa_page_table
        return metadata.page_table

    def _select_translated(self, metadata):
        return metadata.swa_page_table if self.paged_swa else metadata.page_table  # expect: KVP003
