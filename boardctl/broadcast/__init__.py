"""A room of boards as one live broadcast through an MQTT broker (docs/broadcast.md).

:mod:`~boardctl.broadcast.schema` is the pure contract (addresses, topics, messages, their
checks); :mod:`~boardctl.broadcast.publisher` is the board's face that publishes its game;
:mod:`~boardctl.broadcast.relay` folds the boards' messages into games, the multi-game PGN and
the arbiter's view; :mod:`~boardctl.broadcast.relay_server` serves them over HTTP (``boardctl relay``).
"""
