"""A backend asking a helper of another module, handed the backend, whether to write the SWA
cache: the helper reads the kept flag; the decision is the call's, reported once there."""
