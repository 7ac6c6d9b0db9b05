"""SWA helpers mixed into backends: called from their ``__init__`` and their forwards."""
from __future__ import annotations


class SwaStateMixin:
    def _init_swa_state(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self._swa_translate = pool.translate_loc_from_full_to_swa  # expect: KVP001
        self._swa_index_map = pool.full_to_swa_index_mapping  # expect: KVP001

    def _select_page_table(self, metadata):
        if self.window_mode:  # expect: KVP003
            return metadata.swa_page_table
        return metadata.page_table
