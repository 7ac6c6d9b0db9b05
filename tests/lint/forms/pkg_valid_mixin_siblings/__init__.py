"""Mixins of one backend reading a sibling mixin's live view of the pool: nothing is stale."""
