"""``--dist loadgroup`` whose bookkeeping costs the same for every test (``tests/conftest.py``
installs it through ``pytest_xdist_make_scheduler``).

xdist 3.8's ``LoadGroupScheduling`` (a ``LoadScopeScheduling``) makes every test without an
``xdist_group`` a work unit of its own, and never forgets one: after each test it counts the
pending tests of every unit the worker was ever given (``_pending_of``, from ``_reschedule`` and
from ``tests_finished`` on every event), and it finds each test's position in the worker's
collection with ``list.index``. Both are linear per test, so the run is quadratic: with 12,600
tests the controller spent ~25 s of CPU on it, on the same two cores as the workers (a profile
of 4,500 tests: 3.8 M calls of that count's generator, 4 s). Here a unit is dropped from the
worker's work once all its tests are done (nothing reads a finished unit: the counts only look
for pending tests, a crashed worker's pending units are queued again) and positions are looked
up in a dict built once per worker. What runs where, and in what order, is unchanged.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController


class LinearLoadGroupScheduling(LoadGroupScheduling):
    """``LoadGroupScheduling`` with O(1) bookkeeping per finished test (a group's own tests
    aside: its unit is checked for completion, linear in the size of that group)."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._positions: dict[WorkerController, dict[str, int]] = {}

    def mark_test_complete(
        self, node: WorkerController, item_index: int, duration: float = 0
    ) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        work = self.assigned_work[node]
        unit = work[scope]
        unit[nodeid] = True
        if all(unit.values()):
            del work[scope]  # done: no count need visit it again
        self._reschedule(node)

    def _assign_work_unit(self, node: WorkerController) -> None:
        scope, unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = unit
        positions = self._positions.get(node)
        if positions is None:
            collection = self.registered_collections[node]
            positions = self._positions[node] = {n: i for i, n in enumerate(collection)}
        node.send_runtest_some([positions[n] for n, done in unit.items() if not done])
