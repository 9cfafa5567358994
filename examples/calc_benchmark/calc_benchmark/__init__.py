"""calc: an example pytest-toolcall benchmark (``benchmark.py``) and the declaration of its options
(``options.py``). This package imports nothing: pytest imports ``options.py`` in every run, and with
it this file."""
