"""The project's own test kit: what the tests, ``bench/`` and ``tools/`` share.

Not part of the wheel (``pyproject.toml`` packages ``p2pgin*`` only). Tests import it
because pytest puts the repository root on the path (``pythonpath = ["."]``); scripts in
``bench/`` import it after ``bench/_repo.py``, those in ``tools/`` after their one
``sys.path`` line.

- :mod:`testkit.term`: a real terminal of a fixed size (tmux): keys in, screen text out.
- :mod:`testkit.keys`: the keys a simple player presses, read off the console's key strip.
- :mod:`testkit.lan`: a virtual LAN of network namespaces on one bridge (root), with
  delay, loss and pulled cables; :mod:`testkit.nfqueue` is its packet holder.
- :mod:`testkit.procs`: whether a process still runs, and waiting for one to end.
- :mod:`testkit.memtable`: real sessions wired in memory (no sockets) and the match
  transcripts benchmarks and tests play with it.
- :mod:`testkit.gin_reference`, :mod:`testkit.rummy_variants`: the slow, obviously right
  meld finder and the Rummy rule sets that engine tests and benchmarks both use.
"""
