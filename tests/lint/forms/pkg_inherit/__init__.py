"""A base backend defining an SWA flag in one module, subclasses gating on it in others."""
