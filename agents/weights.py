"""The ``expert`` heuristic's default weights, in card-value units (a card's rank
scaled to 0..1, plus 1 for a trump; see ``agents.heuristics``).

``ExpertAgent`` takes them as its defaults and its numba rules
(``agents.expert_kernel``) play by them, so both change together.
"""

W_COUNT = 0.4  # chance that an attack card gets beaten
FORCE_TAKE = 0.25  # throw in a plain card beaten with at most this chance
W_PAIRS = 0.3  # keeping and using cards of a rank the hand holds several of
W_TRUMP = 0.5  # spending a trump, scaled by how full the talon is
W_HIGH = 1.0  # per unit of the trump's rank
TAKE_BASE = 1.5  # taking: once
TAKE_CARD = 0.4  # taking: per card on the table
THROW_MAX = 0.8  # throw in only cards that cost at most this
JUNK_MAX = 0.5  # give a defender who takes only cards worth at most this
