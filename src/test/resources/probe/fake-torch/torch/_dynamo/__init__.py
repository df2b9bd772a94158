"""torch._dynamo, faked: slow to import (the main thread waits in its body, see torch/_race.py)."""
from torch import _race

_race.main_waits_for_a_snapshot()

from . import guards  # noqa: E402,F401
