"""``SyncClient``'s old address: it lives in ``llmbridge.client.sync_client`` (a re-export)."""

from .client.sync_client import SyncClient, SyncToolLoop

__all__ = ["SyncClient", "SyncToolLoop"]
