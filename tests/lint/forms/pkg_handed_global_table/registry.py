"""Module-level registries for the windowed backends."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Type

import torch

_BACKENDS: Dict[str, Type] = {}
_INDEX_MAPPINGS: Dict[int, torch.Tensor] = {}


def register_backend(name: str) -> Callable[[Type], Type]:
    def deco(cls: Type) -> Type:
        _BACKENDS[name] = cls
        return cls

    return deco


def get_backend_cls(name: str) -> Type:
    return _BACKENDS[name]


def publish_index_mapping(owner: object, mapping: Optional[torch.Tensor]) -> None:
    if mapping is not None:
        _INDEX_MAPPINGS[id(owner)] = mapping


def lookup_index_mapping(owner: object) -> Optional[torch.Tensor]:
    return _INDEX_MAPPINGS.get(id(owner))
