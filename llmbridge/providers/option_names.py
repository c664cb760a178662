"""Which ``providers={name: {...}}`` keys a provider takes, so a typo fails where it is made.

Rules:

* Every provider takes the common keys (``COMMON_OPTIONS``: ``api_key``, ``base_url``,
  ``headers``, ``env``, ``auth``, ``token_provider``, ``token_timeout``). A provider factory may also *declare* its own option names with
  ``declare_options(factory, names)`` (it sets ``factory.option_names``; a plug-in may set that
  attribute itself, a frozenset of strings, on a function or a class).
* ``check_options`` runs when a ``Client`` is made: a key that is neither common nor declared is
  a ``UsageError`` naming the closest known key (``difflib``: "did you mean 'base_url'?").
* A factory that declares nothing (a third-party provider written before this existed) is not
  checked: its options pass as given.
* Call options only some providers honour are declared in ``OPTION_PROVIDERS`` with the
  built-in providers that have them; ``unsupported_option`` is the ``ConfigurationError``
  raised before sending anywhere else, naming those providers. Whether a provider has one is
  asked of the provider object (e.g. ``background``: ``base.Resumable``), never of its name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, TypeVar

from ..errors import ConfigurationError, UsageError

__all__ = [
    "COMMON_OPTIONS",
    "OPTION_PROVIDERS",
    "check_options",
    "declare_options",
    "did_you_mean",
    "option_names",
    "unsupported_option",
]

COMMON_OPTIONS = frozenset(
    {"api_key", "base_url", "headers", "env", "auth", "token_provider", "token_timeout"}
)
"""The keys every provider takes (``ProviderConfig``'s own fields; ``auth`` is an
``httpx.Auth`` or, for some providers, a header-style name such as ``"x-api-key"``;
``token_timeout``: seconds a ``token_provider`` call may take)."""

OPTION_PROVIDERS: dict[str, tuple[str, ...]] = {
    # the Responses API's background mode (providers/openai_responses/resume.py) and
    # Gemini's Interactions API (providers/gemini_interactions/provider.py)
    "background": (
        "openai-responses",
        "azure-responses",
        "bedrock-mantle-responses",
        "gemini-interactions",
        "vertex-interactions",
    ),
}
"""Call options only some providers honour → the built-in providers that do."""

F = TypeVar("F")


def declare_options(factory: F, names: Iterable[str]) -> F:
    """Declare the provider-specific option names ``factory`` takes (returns ``factory``)."""
    factory.option_names = frozenset(names)  # type: ignore[attr-defined]
    return factory


def option_names(factory: Any) -> frozenset[str] | None:
    """Every key ``factory``'s provider takes, or ``None`` when it declares none."""
    declared = getattr(factory, "option_names", None)
    if declared is None:
        return None
    return COMMON_OPTIONS | frozenset(declared)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or ``""`` when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_options(provider: str, factory: Any, keys: Iterable[str]) -> None:
    """``UsageError`` for a key ``provider`` does not take (see module rules)."""
    known = option_names(factory)
    if known is None:
        return
    for key in sorted(set(keys) - known):
        raise UsageError(
            f"providers={{{provider!r}: {{{key!r}: ...}}}}: {provider} takes no option "
            f"{key!r}{did_you_mean(key, known)}; it takes {', '.join(sorted(known))}"
        )


def unsupported_option(
    option: str, *, provider: str, model: str | None = None, label: str | None = None
) -> ConfigurationError:
    """The error for ``option=`` (what ``label`` names, else ``option=``) asked of a provider
    that does not honour it, before sending."""
    where = f"{provider}:{model}" if model else provider
    have = ", ".join(OPTION_PROVIDERS.get(option, ())) or "none built in"
    return ConfigurationError(
        f"{label or option + '='} is not available on {where}; providers that have it: {have}",
        provider=provider,
    )
