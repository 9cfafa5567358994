"""A team's own tool-calling cases: ``*.toolcall.yaml`` files and Python tests, scored alike."""
