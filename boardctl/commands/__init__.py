"""The commands: one module per ``boardctl`` sub-command (``add_parser`` and ``run``), the top layer.

Each reads its options, checks them once, and hands what it runs to the composition root
(:mod:`boardctl.commands.root`), which builds the store, the session, the engine, the daemon and
its faces. Nothing below imports this package; ``boardctl.cli`` collects the commands.
"""
