"""A mixin module holding SWA state helpers, mixed into a backend defined elsewhere."""
