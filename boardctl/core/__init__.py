"""The game-neutral core: board geometry and the rules interface every game implements.

Nothing in here knows chess or xiangqi; ``boardctl.variants.<game>`` supplies the rules.
"""
