"""The board as a Millennium ChessLink board for other apps (``boardctl link``, docs/chesslink.md).

One module per part: :mod:`~boardctl.chesslink.protocol` (framing, commands, replies, options,
the status string and the LED grid; pure), :mod:`~boardctl.chesslink.board` (the emulated board:
replies, automatic reports, LEDs; pure), :mod:`~boardctl.chesslink.view` (which piece stands
where, from the game and the switches; pure), :mod:`~boardctl.chesslink.face` (the face on the
daemon: state lines in, statuses out, the app's LEDs to the board),
:mod:`~boardctl.chesslink.transports` (TCP, a serial port, BLE) and
:mod:`~boardctl.chesslink.appmode` (``boardctl link``, :mod:`boardctl.commands.link`).
"""
