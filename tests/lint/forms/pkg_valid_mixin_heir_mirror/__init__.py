"""A mixin gating on the resolved pool's mirror, inherited in its own module by a backend whose
base, in another module, resolves the pool and keeps the mirror: what the heir says holds."""
