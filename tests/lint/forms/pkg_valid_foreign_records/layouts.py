from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class WindowLayout:
    window: int
    page_size: int
    window_pool: Optional[Any] = None
