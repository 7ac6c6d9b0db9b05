"""Pool state spread into a container by a class-level constructor or read through the pool's
namespace: ``dict.fromkeys(layers, sub_pool)`` keeps the sub-pool under every key, ``vars(pool)``
is the pool's attributes (a membership test of an SWA name in it is a duck test of its type),
and ``attrs.evolve`` of a record holding a mapping keeps the mapping it does not replace."""
from __future__ import annotations

import collections
import types

import attrs

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@attrs.define
class LocPlan:
    table: object = None
    page: int = 1


class SpreadStateAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        pool = model_runner.token_to_kv_pool
        layers = range(model_runner.model_config.num_hidden_layers)
        self.per_layer_table = collections.OrderedDict.fromkeys(layers, pool.full_to_swa_index_mapping)  # expect: KVP001
        self.per_layer_page = dict.fromkeys(layers, model_runner.page_size)
        self.pool_view = types.MappingProxyType(vars(pool))  # expect: KVP001
        self.can_translate = "translate_loc_from_full_to_swa" in vars(pool)  # expect: KVP002
        self.config_view = types.MappingProxyType(vars(model_runner.model_config))
        plan = LocPlan(table=getattr(pool, "full_to_swa_index_mapping", None))
        self.plan = attrs.evolve(plan, page=model_runner.page_size)  # expect: KVP001

    def init_forward_metadata(self, forward_batch):
        if self.can_translate:  # expect: KVP003
            return self.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        if self.plan.table is not None:  # expect: KVP003
            return self.plan.table[forward_batch.out_cache_loc]
        return forward_batch.out_cache_loc, self.per_layer_page[0]


class SpreadPerForwardAttnBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.per_layer_page = dict.fromkeys(range(4), model_runner.page_size)
        self.base_plan = LocPlan(page=model_runner.page_size)

    def init_forward_metadata(self, forward_batch):
        pool = self.token_to_kv_pool
        plan = attrs.evolve(self.base_plan, table=getattr(pool, "full_to_swa_index_mapping", None))
        if "translate_loc_from_full_to_swa" in vars(pool):
            return pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
        if plan.table is not None:
            return plan.table[forward_batch.out_cache_loc]
        return forward_batch.out_cache_loc
