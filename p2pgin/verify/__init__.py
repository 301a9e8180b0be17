"""``p2pgin verify``'s command (:mod:`p2pgin.verify.cli`); what it checks is in
:mod:`p2pgin.records`."""
