"""Gates on a flag a sibling mixin makes: the backend inheriting both is what self is."""
from __future__ import annotations


class WindowGateMixin:
    def _select_page_table(self, metadata):
        if self.window_mode:  # expect: KVP003
            return metadata.swa_page_table
        return metadata.page_table

    def _select_size(self, metadata):
        return metadata.swa_size if self.window_size_known else metadata.size
