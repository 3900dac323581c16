"""Privacy (issue 13, docs/privacy.md): per-person sensitivity policies and topic boundaries
(policy.py), what leaves the owner's view (outside.py), and the frame that carries memory text
to a model as data, never as instructions (frame.py)."""
