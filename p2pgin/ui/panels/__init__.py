"""The console's panels, each pure: a :class:`~p2pgin.ui.model.Table` plus the console's
own state to prompt_toolkit formatted text.

Nothing here touches the session, the terminal or the clock, so tests render real
engine states and compare text. Every panel returns ``StyleAndTextTuples`` (lines
joined by ``"\\n"``); :func:`~p2pgin.ui.frags.plain_text` strips the styles. Colour is
never the only signal: selection, the drawn card, highlights and alarms are also marked
in text.
"""
