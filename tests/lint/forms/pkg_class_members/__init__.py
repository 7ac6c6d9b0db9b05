"""A class member a classmethod of another module picks by a pool test (``return cls.SPLIT``
under ``isinstance``/``hasattr``/``match``): kept, it is that decision, stale under FROZEN_KV."""
