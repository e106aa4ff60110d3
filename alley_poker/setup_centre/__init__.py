"""A centre set up in one command (``alley-poker init``) and checked (``alley-poker doctor``)."""
