"""Internal utilities of skcalib (private API, no stability guarantee)."""
