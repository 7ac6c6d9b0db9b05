from pkg_valid_foreign_registry import tables
from pkg_valid_foreign_registry.tables import PAGE_SIZES
from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class GeometryTabledAttnBackend(AttentionBackend):
    """Only geometry goes into the shared tables; a table nobody here filled with pool state
    decides nothing stale when read back."""

    def __init__(self, model_runner, name="target"):
        self.name = name
        PAGE_SIZES[name] = model_runner.page_size

    def init_forward_metadata(self, forward_batch):
        page = tables.page_size_of(self.name)
        translate = tables.translator_for(self.name)
        loc = forward_batch.out_cache_loc
        if page > 1 and translate is not None:
            loc = translate(loc)
        self.pages = loc // page
