from dataclasses import dataclass
from typing import Any, NamedTuple, Optional


@dataclass(frozen=True)
class WindowLayout:
    window: int
    page_size: int
    window_pool: Optional[Any] = None


class Routes(NamedTuple):
    translate: Any
    mapping: Any
    heads: int
