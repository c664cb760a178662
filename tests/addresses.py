"""Where each public name of ``llmbridge`` can be imported from: its addresses.

Run it from the repository root::

    python -m tests.addresses     # every name with an address beyond its home and llmbridge

Rules: an address is a module whose ``__all__`` lists the name. A name's home is the module
that defines it (``obj.__module__``); the packages enclosing the home count as the same
home, and ``llmbridge`` itself is every public name's second address. An object a factory
made (``map_finish_reason = finish_reason_mapper(...)``, an ``IdRule(...)`` instance) is not
found under its name in ``obj.__module__``: its home is the deepest module exporting it. Only objects defined in
``llmbridge`` are counted (a type alias of ``typing`` has no home of ours). Modules that need an
optional extra which is missing are skipped. ``tests/test_addresses.py`` holds the package to
one home (plus ``llmbridge``), less an explicit allow-list.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import llmbridge

__all__ = ["extra_addresses", "main"]


def _modules() -> list[str]:
    names = ["llmbridge"]
    for info in pkgutil.walk_packages(llmbridge.__path__, "llmbridge."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra is missing
            continue
        names.append(info.name)
    return sorted(names)


def _homes(home: str) -> set[str]:
    """The home, the packages enclosing it (their exports are its front doors), ``llmbridge``."""
    parts = home.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts) + 1)}


def extra_addresses() -> dict[str, list[str]]:
    """``"home:name"`` -> the modules beyond its home (and ``llmbridge``) that export it."""
    seen: dict[str, set[str]] = {}
    made: dict[tuple[int, str], set[str]] = {}
    for name in _modules():
        module = sys.modules[name]
        for public in getattr(module, "__all__", ()):
            obj = getattr(module, public, None)
            home = getattr(obj, "__module__", None)
            if not isinstance(home, str) or not home.startswith("llmbridge"):
                continue
            if getattr(obj, "__name__", public) != public:
                continue  # an alias under another name is not this name's address
            if getattr(sys.modules.get(home), public, None) is not obj:
                made.setdefault((id(obj), public), set()).add(name)
                continue  # made by a factory of ``home``: its home is where it was made
            seen.setdefault(f"{home}:{public}", set()).add(name)
    for (_, public), places in made.items():
        maker = max(places, key=lambda place: place.count("."))
        seen.setdefault(f"{maker}:{public}", set()).update(places)
    out = {}
    for key, places in sorted(seen.items()):
        extra = sorted(places - _homes(key.partition(":")[0]))
        if extra:
            out[key] = extra
    return out


def main() -> int:
    extra = extra_addresses()
    for key, places in extra.items():
        print(f"{key}  also: {', '.join(places)}")
    print(f"{len(extra)} names with more than one home")
    return 1 if extra else 0


if __name__ == "__main__":
    sys.exit(main())
