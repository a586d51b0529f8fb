"""Two boards, one game over the network: ``boardctl host`` and ``boardctl join`` (docs/network-protocol.md)."""
