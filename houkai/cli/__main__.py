"""``python -m houkai.cli``."""

from . import main

main()
