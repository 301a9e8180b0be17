"""One module per ``p2pgin`` command: its handler (``_cmd_NAME``) and what only it uses."""
