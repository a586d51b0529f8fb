"""The move tracker's parts (``boardctl.tracker.Tracker`` puts them together): each owns its state.

Pure, like the tracker: no I/O, no threads, no clock.
"""
