"""A heir storing what its base's resolver method (another module) returns, mirroring it and
gating on the mirror: the resolver asks the allocator, so all of it is the fix itself."""
