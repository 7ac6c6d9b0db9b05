"""Gates on a property a sibling mixin defines: evaluated at every forward."""
from __future__ import annotations


class LiveGateMixin:
    def _select_page_table(self, metadata):
        if self.window_mode:
            return metadata.swa_page_table
        return metadata.page_table
