"""A base of one module resolves the SWA pool through the allocator; an heir of another narrows
the mirror of it (and SWA layers exist): every gate on it tests the resolved pool."""
