"""Mixins of one backend reading what a sibling mixin of another module stores on self."""
