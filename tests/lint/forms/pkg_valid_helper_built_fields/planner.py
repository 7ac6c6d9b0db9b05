"""The helper objects of a backend family: a shape of geometry, a planner around a pool."""
from __future__ import annotations


class ChunkShape:
    def __init__(self, chunk, window=0):
        self.chunk = chunk
        self.window = window


class ChunkPlanner:
    def __init__(self, chunk, translate=None, window_pool=None):
        self.chunk = chunk
        self.translate = translate
        self.window_pool = window_pool
