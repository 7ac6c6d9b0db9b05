"""A mixin gating on a flag a sibling mixin derives from state only the backend stores."""
