"""Deck and toss secrets in real play come from the OS CSPRNG, never a seeded PRNG."""

from __future__ import annotations

import argparse
import random

from p2pgin.cli.options import _secret_source


def test_play_draws_session_secrets_from_the_os_csprng() -> None:
    source = _secret_source(argparse.Namespace(seed=None))
    assert isinstance(source, random.SystemRandom)
    assert source.randbytes(32) != source.randbytes(32)


def test_only_the_hidden_test_seed_makes_secrets_reproducible() -> None:
    first = _secret_source(argparse.Namespace(seed=7)).randbytes(32)
    again = _secret_source(argparse.Namespace(seed=7)).randbytes(32)
    assert first == again
