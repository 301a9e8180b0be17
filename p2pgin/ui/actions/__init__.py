"""The console's actions, one set per mode, stacked into :class:`~p2pgin.ui.controller.Console`."""
