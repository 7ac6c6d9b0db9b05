"""A helper of another module handed the pool allocator returns its pool unconditionally."""
