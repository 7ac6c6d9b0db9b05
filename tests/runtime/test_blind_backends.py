"""The blind backend material builds and launches on real SGLang pools, guard off.

Only the material is checked here (it constructs in every configuration it is meant for, its
launch runs under SGLang's own FROZEN_KV swap, the stale state it names exists); whether a
guard refuses the stale ones and launches the correct ones is the guard's tests' business.
"""
from __future__ import annotations

import re

import pytest

import blind_backends as blind


def _resolve(backend, path: str):
    value = backend
    for name, key in re.findall(r"\.?([A-Za-z_]\w*)|\[(\d+)\]", path):
        value = getattr(value, name) if name else value[int(key)]
    return value


def test_material_covers_the_brief():
    assert len(blind.STALE) >= 10 and len(blind.CORRECT) >= 6
    assert {cls.EXPECT for cls in blind.STALE} == {"stale"}
    assert {cls.EXPECT for cls in blind.CORRECT} == {"correct"}
    for cls in blind.STALE + blind.CORRECT:
        assert cls.__doc__ and set(cls.CONFIGS) <= set(blind.ALL), cls


@pytest.mark.parametrize("cls, config", blind.cases(),
                         ids=[f"{cls.__name__}-{config}" for cls, config in blind.cases()])
def test_builds_and_launches_on_real_pools(cls, config):
    run = blind.scenario(cls, config)
    q = blind.launch(run)
    assert q.shape[0] == run.batch.batch_size
    if cls.EXPECT == "stale":
        _resolve(run.backend, cls.STALE_STATE)
