"""Correct package: the resolver, a live base-class property and the gates in other modules."""
