"""The helper objects of a backend family: a planner holding a translator and a window pool."""
from __future__ import annotations


class ChunkPlanner:
    def __init__(self, chunk, translate=None, window_pool=None):
        self.chunk = chunk
        self.translate = translate
        self.window_pool = window_pool


class WindowRoute:
    def __init__(self, mapping, window_pool):
        self.mapping = mapping
        self.window_pool = window_pool
