"""How the app names the three vector-env backends, in one place for every page and chart."""

from __future__ import annotations

__all__ = ["BACKEND_CLASSES", "BACKEND_NAMES", "backend_label"]

BACKEND_NAMES = {"sync": "Sync", "async": "Async", "native": "native"}
"""Short names, as in tables and chart legends."""

BACKEND_CLASSES = {
    "sync": "SyncVectorEnv",
    "async": "AsyncVectorEnv",
    "native": "BurgerBotVectorEnv",
}
"""The class each backend builds (BurgerBotVectorEnv is this project's, not Gymnasium's)."""


def backend_label(backend: str, with_class: bool = False) -> str:
    """``"sync"`` -> ``"Sync"``, or ``"Sync (SyncVectorEnv)"`` with ``with_class``.

    >>> backend_label("native", with_class=True)
    'native (BurgerBotVectorEnv)'
    """
    name = BACKEND_NAMES[backend]
    return f"{name} ({BACKEND_CLASSES[backend]})" if with_class else name
