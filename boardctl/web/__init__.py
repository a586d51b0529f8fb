"""The web companion: the page, its WebSocket, the PIN for LAN clients."""
